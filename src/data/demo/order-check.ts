/**
 * Is an ordered gold result well defined? When gold SQL has ORDER BY, the verifier compares row order, and with
 * LIMIT it keeps only the first rows; if two rows tie on the ORDER BY keys but differ in what they show, SQLite's
 * scan order, not the question, decides the answer. We test that directly: add every output column as a final tie
 * breaker, once ascending and once descending. Both runs give the same rows in the same order exactly when no tie
 * changes the answer (rows that tie but show the same values are harmless).
 *
 * Rules the demo's gold SQL follows so the check is complete: at most one ORDER BY, at the top level (never in a
 * subquery), and LIMIT only after it.
 */
import type { SqlExecutor } from '../../sql/executor.ts';
import { significantTokens, type Token } from '../../sql/tokenize.ts';
import type { SqlValue } from '../../sql/types.ts';

interface Clauses {
  /** Index in the SQL text just after the ORDER BY key list (where tie breakers go), or null without ORDER BY. */
  orderEnd: number | null;
  problem: string | null;
}

function word(t: Token | undefined, w: string): boolean {
  return t !== undefined && t.kind === 'word' && t.text.toLowerCase() === w;
}

function findClauses(sql: string): Clauses {
  const tokens = significantTokens(sql).filter((t) => !(t.kind === 'punct' && t.text === ';'));
  let depth = 0;
  let orderAt = -1;
  let orderCount = 0;
  let limitAt = -1;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.kind === 'punct' && t.text === '(') depth++;
    else if (t.kind === 'punct' && t.text === ')') depth--;
    else if (word(t, 'order') && word(tokens[i + 1], 'by')) {
      orderCount++;
      if (depth > 0) return { orderEnd: null, problem: 'ORDER BY inside a subquery: its ties cannot be checked' };
      orderAt = i;
    } else if (word(t, 'limit')) {
      if (depth > 0) return { orderEnd: null, problem: 'LIMIT inside a subquery: write it with max()/min() instead' };
      limitAt = i;
    }
  }
  if (orderCount > 1) return { orderEnd: null, problem: 'more than one ORDER BY' };
  if (limitAt >= 0 && (orderAt < 0 || limitAt < orderAt)) return { orderEnd: null, problem: 'LIMIT without ORDER BY picks arbitrary rows' };
  if (orderAt < 0) return { orderEnd: null, problem: null };
  if (limitAt >= 0) return { orderEnd: tokens[limitAt].start, problem: null };
  const last = tokens[tokens.length - 1];
  return { orderEnd: last.start + last.text.length, problem: null };
}

/** `sql` with `, 1 dir, 2 dir, …` appended to its top-level ORDER BY; null when it has none. */
export function withTieBreakers(sql: string, columnCount: number, direction: 'ASC' | 'DESC'): string | null {
  const { orderEnd } = findClauses(sql);
  if (orderEnd === null) return null;
  const breakers = Array.from({ length: columnCount }, (_, i) => `${i + 1} ${direction}`).join(', ');
  const head = sql.slice(0, orderEnd).trimEnd();
  const tail = sql.slice(orderEnd).trimStart();
  return `${head}, ${breakers}${tail ? ` ${tail}` : ''}`;
}

function sameRows(a: SqlValue[][], b: SqlValue[][]): boolean {
  return a.length === b.length && a.every((row, i) => row.length === b[i].length && row.every((v, j) => v === b[i][j]));
}

/**
 * Why the ordered result of `sql` on `dbKey` is not well defined, or null when it is (or the SQL has no ORDER BY).
 * `columnCount` is the number of result columns.
 */
export async function orderAmbiguity(executor: SqlExecutor, dbKey: string, sql: string, columnCount: number): Promise<string | null> {
  const { problem } = findClauses(sql);
  if (problem) return problem;
  const ascending = withTieBreakers(sql, columnCount, 'ASC');
  const descending = withTieBreakers(sql, columnCount, 'DESC');
  if (ascending === null || descending === null) return null;
  const [up, down] = await Promise.all([executor.query(dbKey, ascending), executor.query(dbKey, descending)]);
  if (!sameRows(up.rows, down.rows)) return 'rows that tie on the ORDER BY keys change the answer; add a tie breaker to the gold SQL or change the question';
  return null;
}
