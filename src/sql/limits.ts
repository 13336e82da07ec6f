/**
 * Every value budget in one table, from the moment SQLite answers to the transcript a person reads. Each stage only
 * ever shrinks what the stage before it kept, so the sizes below are also the worst cases downstream code must
 * handle:
 *
 *   SQLite ─▶ worker: cellChars / blobBytes / columnNameChars per value, resultChars and rows per result
 *          ─▶ step info, transcripts, UI (`view*`) ─▶ observation text (`observation*`, `actionEchoChars`)
 *
 * Units: "chars" are UTF-16 code units (JavaScript string length); bytes are bytes. A value over its budget is
 * replaced by a marker that states its full size and a hash of the whole value (see clip.ts), so it stays
 * recognisable and two different long values never share a comparison key.
 */
export const VALUE_LIMITS = {
  /**
   * Text characters kept per cell after SQLite. Spider's values are names, titles and dates of at most a few
   * hundred characters, so 4 KiB keeps every real value whole (exact comparison with the gold still works) while
   * one hostile cell costs the worker's reply at most ~8 KiB.
   */
  cellChars: 4_096,
  /** Bytes kept per BLOB cell. 2 KiB is 4,096 hex characters in keys and JSON: the same footprint as `cellChars`. */
  blobBytes: 2_048,
  /**
   * Characters kept per column name. Names come from the statement's text (`AS "…"`), which is not otherwise
   * bounded; 256 is far above any real name. With SQLite's 2,000-column cap this bounds all names to ~0.6 M chars.
   */
  columnNameChars: 256,
  /**
   * Sum over the kept cells of a result, each cell counted at least 1 (numbers by their decimal text, BLOBs as
   * hex, 2 per byte). Rows stop before the one that would pass it (`truncatedBy: 'chars'`). 1 M characters is
   * ~2 MB across postMessage, keeps similarity keys and fingerprints at a few MB, and still holds 10,000 rows of
   * ten 10-character cells: every gold result we keep fits with room to spare.
   */
  resultChars: 1_000_000,
  /** Rows read from a statement at most (the verifier and the gold store see up to this many). */
  rows: 10_000,
  /** Characters of an error message that crosses from the worker (SQLite may quote the statement back). */
  errorChars: 1_000,
  /** Rows of a result kept in step info, transcripts and the UI (`ResultView`). */
  viewRows: 20,
  /** Characters per cell kept in step info, transcripts and the UI; enough to read a long value in the page. */
  viewCellChars: 1_000,
  /** Characters of all cells of one `ResultView` together: 64 Ki keeps a step's JSON well under 1 MB. */
  viewChars: 65_536,
  /** Rows of a result shown in the observation text. */
  observationRows: 20,
  /** Characters per cell in the observation text: enough for names and dates, short enough to keep tables aligned. */
  observationCellChars: 60,
  /** Columns shown in the observation text; the rest are counted ("N more columns not shown"). */
  observationColumns: 24,
  /** Characters of one result table in the observation text, its notes included (~500 tokens). */
  observationChars: 2_000,
  /** Characters of a DESCRIBE observation: Spider's widest tables (~50 columns) need ~2,500. */
  describeChars: 8_000,
  /** Characters of the agent's action echoed at the top of an observation. */
  actionEchoChars: 500,
  /** Characters of an action's text kept in a transcript step (saved runs, Compare); models write far less per turn. */
  transcriptActionChars: 10_000,
} as const;

export type ValueLimits = typeof VALUE_LIMITS;

/** The part of `VALUE_LIMITS` the SQL engine applies to every result before it leaves the worker. */
export interface ResultBudget {
  cellChars: number;
  blobBytes: number;
  columnNameChars: number;
  resultChars: number;
}

export const RESULT_BUDGET: ResultBudget = {
  cellChars: VALUE_LIMITS.cellChars,
  blobBytes: VALUE_LIMITS.blobBytes,
  columnNameChars: VALUE_LIMITS.columnNameChars,
  resultChars: VALUE_LIMITS.resultChars,
};
