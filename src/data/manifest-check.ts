/**
 * A bundle's questions as read from its manifest.json, checked before the environment trusts them. A bundle may come
 * from anywhere (`--data DIR`, a served folder), and the environment grades every ANSWER against what it says: a gold
 * row of the wrong width, a cell that is no SQL value, or tie groups (`goldTies`) the stored result is not one of
 * would turn into wrong verdicts or a crash deep inside an episode. The first problem is named with the question's
 * position and id, so the file can be fixed or made again (`npm run data:spider`, `npm run data:demo`).
 */
import { decodeValue, isLegalCut } from './gold.ts';
import { printable } from './printable.ts';
import type { JsonSqlValue } from './types.ts';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A cell as bundles store it: a finite number, a string, null, or a BLOB as `{ "$blob": <even-length hex> }`. */
export function isJsonSqlValue(v: unknown): v is JsonSqlValue {
  if (v === null || typeof v === 'string') return true;
  if (typeof v === 'number') return Number.isFinite(v);
  return isRecord(v) && Object.keys(v).length === 1 && typeof v.$blob === 'string' && /^(?:[0-9a-f]{2})*$/i.test(v.$blob);
}

/** Why `rows` is not a list of rows of `width` SQL values, or null. */
function rowsProblem(rows: unknown, width: number, what: string): string | null {
  if (!Array.isArray(rows)) return `${what} is not a list of rows`;
  for (let r = 0; r < rows.length; r++) {
    const row: unknown = rows[r];
    if (!Array.isArray(row) || row.length !== width) return `${what} row ${r} is not a row of ${width} value${width === 1 ? '' : 's'}`;
    const bad = row.findIndex((cell) => !isJsonSqlValue(cell));
    if (bad >= 0) return `${what} row ${r} cell ${bad} is not an SQL value (a number, a string, null or {"$blob": hex})`;
  }
  return null;
}

/** Why the tie groups are malformed or do not hold the stored rows as one of their legal results, or null. */
function tiesProblem(ties: unknown, rows: JsonSqlValue[][], width: number): string | null {
  if (!isRecord(ties) || !Array.isArray(ties.segments) || ties.segments.length === 0) return 'goldTies has no list of segments';
  const segments: Array<{ take: number; pool: JsonSqlValue[][] }> = [];
  for (let i = 0; i < ties.segments.length; i++) {
    const s: unknown = ties.segments[i];
    if (!isRecord(s)) return `goldTies segment ${i} is not an object`;
    const problem = rowsProblem(s.pool, width, `goldTies segment ${i} pool`);
    if (problem) return problem;
    const pool = s.pool as JsonSqlValue[][];
    if (typeof s.take !== 'number' || !Number.isInteger(s.take) || s.take < 1 || s.take > pool.length) {
      return `goldTies segment ${i} takes ${printable(String(s.take))} rows of a pool of ${pool.length} (a whole number from 1 to the pool's size is needed)`;
    }
    segments.push({ take: s.take, pool });
  }
  const decoded = segments.map((s) => ({ take: s.take, pool: s.pool.map((row) => row.map(decodeValue)) }));
  if (!isLegalCut(decoded, rows.map((row) => row.map(decodeValue)))) {
    const taken = segments.reduce((n, s) => n + s.take, 0);
    return taken === rows.length ? 'the gold result is not one of the results its goldTies allow' : `goldTies take ${taken} rows, the gold result has ${rows.length}`;
  }
  return null;
}

/** Why question `q` (at `index`) cannot be graded as stored, or null when it can. */
export function manifestQuestionProblem(q: unknown, index: number, databaseIds: ReadonlySet<string>): string | null {
  if (!isRecord(q)) return `question ${index} is not an object`;
  const at = `question ${index}${typeof q.id === 'string' ? ` ('${printable(q.id)}')` : ''}`;
  for (const field of ['id', 'dbId', 'question', 'gold'] as const) {
    if (typeof q[field] !== 'string') return `${at} has no text '${field}'`;
  }
  if (!databaseIds.has(q.dbId as string)) return `${at} names database '${printable(q.dbId as string)}', which the manifest does not list`;
  if (typeof q.orderMatters !== 'boolean') return `${at} has no true/false 'orderMatters'`;
  const gold = q.goldResult;
  if (!isRecord(gold) || !Array.isArray(gold.columns) || !gold.columns.every((c) => typeof c === 'string')) return `${at} has no goldResult with a list of column names`;
  const problem = rowsProblem(gold.rows, gold.columns.length, `${at}'s goldResult`);
  if (problem) return problem;
  if (q.goldTies !== undefined) {
    const ties = tiesProblem(q.goldTies, gold.rows as JsonSqlValue[][], gold.columns.length);
    if (ties) return `${at}: ${ties}`;
  }
  return null;
}

/** The first problem among the manifest's questions, or null when every one can be graded as stored. */
export function manifestQuestionsProblem(questions: readonly unknown[], databaseIds: ReadonlySet<string>): string | null {
  for (let i = 0; i < questions.length; i++) {
    const problem = manifestQuestionProblem(questions[i], i, databaseIds);
    if (problem) return problem;
  }
  return null;
}
