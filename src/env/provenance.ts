/**
 * Where a query result's values come from, for the progress reward: only values read from the database may earn
 * progress. Two checks, both cheap:
 * - Rows: the SQL layer runs the statement on an empty copy of the database too (`readsData`); a result that is the
 *   same there (`SELECT 5`, `SELECT * FROM sqlite_master`) read no rows and earns nothing.
 * - Literals: a cell whose value the statement wrote itself as a literal (`SELECT 6 FROM singer LIMIT 1`,
 *   `SELECT 'France' ...`) is blanked before the similarity, so a guess typed into a query earns nothing.
 * Known limit: arithmetic on literals inside a query that reads a table (`SELECT 2*3 FROM singer LIMIT 1`) is not
 * traced; it can only reorder episodes that end without a correct answer (the settlement clears progress on success).
 *
 * Also here: the tables a question's gold SQL reads, which the information bonus of DESCRIBE/SAMPLE is limited to.
 */
import { significantTokens, unquoteIdentifier } from '../sql/tokenize.ts';
import type { SqlValue } from '../sql/types.ts';
import type { ResultTable } from './verifier.ts';

export interface StatementLiterals {
  numbers: Set<number>;
  strings: Set<string>;
}

/**
 * The numeric and string literals written in a statement (a leading '-' makes a number negative too; a numeric
 * string counts as its number as well).
 */
export function statementLiterals(sql: string): StatementLiterals {
  const numbers = new Set<number>();
  const strings = new Set<string>();
  const tokens = significantTokens(sql);
  tokens.forEach((t, i) => {
    if (t.kind === 'number') {
      const n = Number(t.text);
      if (!Number.isFinite(n)) return;
      numbers.add(n);
      if (tokens[i - 1]?.text === '-') numbers.add(-n);
    } else if (t.kind === 'string' || (t.kind === 'identifier' && t.text.startsWith('"'))) {
      // A double-quoted word that names no column is a string in SQLite ("France").
      const text = unquoteIdentifier(t.text);
      strings.add(text);
      // '6' + 0 is the number 6.
      const n = Number(text);
      if (text.trim() !== '' && Number.isFinite(n)) numbers.add(n);
    }
  });
  return { numbers, strings };
}

function isLiteral(v: SqlValue, literals: StatementLiterals): boolean {
  if (typeof v === 'number') return literals.numbers.has(v);
  if (typeof v === 'string') {
    if (literals.strings.has(v)) return true;
    // SQLite turns a numeric string literal into a number under numeric affinity and back: '6' → 6 → '6'.
    const n = Number(v);
    return v.trim() !== '' && Number.isFinite(n) && literals.numbers.has(n);
  }
  return false;
}

export interface BlankedResult {
  table: ResultTable;
  /** Cells blanked. */
  blanked: number;
  /**
   * The result shows no value from the database: it has rows and every cell is a literal of the statement or NULL
   * (`SELECT 6, NULL FROM singer LIMIT 1`).
   */
  allLiteral: boolean;
}

/**
 * The result with every cell that equals one of the statement's literals replaced by a marker that equals nothing
 * (unique per cell), so those cells earn no similarity.
 */
export function blankLiteralCells(result: ResultTable, sql: string): BlankedResult {
  const valued = result.rows.reduce((n, r) => n + r.filter((v) => v !== null).length, 0);
  const literals = statementLiterals(sql);
  if (literals.numbers.size === 0 && literals.strings.size === 0) return { table: result, blanked: 0, allLiteral: result.rows.length > 0 && valued === 0 };
  let blanked = 0;
  const rows = result.rows.map((row) =>
    row.map((v) => {
      if (!isLiteral(v, literals)) return v;
      blanked++;
      return new Uint8Array([0xff, blanked & 0xff, (blanked >> 8) & 0xff, (blanked >> 16) & 0xff, blanked >>> 24, 0xfe]);
    }),
  );
  return { table: blanked === 0 ? result : { columns: result.columns, rows }, blanked, allLiteral: result.rows.length > 0 && blanked === valued };
}

/** Tables of `tables` that `sql` mentions (as the database spells them), in order of first mention. */
export function tablesNamedBy(sql: string, tables: readonly string[]): string[] {
  const byLower = new Map(tables.map((t) => [t.toLowerCase(), t]));
  const used: string[] = [];
  for (const token of significantTokens(sql)) {
    if (token.kind !== 'word' && token.kind !== 'identifier') continue;
    const table = byLower.get(unquoteIdentifier(token.text).toLowerCase());
    if (table !== undefined && !used.includes(table)) used.push(table);
  }
  return used;
}
