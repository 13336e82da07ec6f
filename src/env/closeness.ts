/**
 * Closeness of a result to the gold (environment v3), the potential Φ behind the progress reward, measured the way
 * Spider's test-suite metric decides semantic equality: a result counts only as far as it holds on the episode's
 * database AND on seeded perturbed copies of it (src/sql/perturbed-copies.ts; the gold re-run on each copy):
 *
 *   closeness = min over c in {database, copies} of similarity(result_c, gold_c)        (similarity.ts)
 *
 * So a literal guess in any spelling, connection-state functions and random() earn nothing by construction — their
 * results do not follow the gold when the data changes — and the gold SQL run verbatim earns 1 (answers of 0, NULL
 * or empty included). Rules at the edges:
 * - a copy whose gold run failed cannot judge and is left out; a statement that fails (or is cut) on a copy scores 0;
 * - no copy at all (none could be built) means nothing can be verified: closeness 0;
 * - a result that stays the same on every copy while the gold's moves holds no evidence of reading what the gold
 *   reads (a constant in any spelling, gated or not — `SELECT 6 FROM t LIMIT 1`, `… WHERE EXISTS (SELECT 1 FROM
 *   t)` — or anything built from connection state): closeness 0. Without this, a typed small number would still
 *   meet the gold's small counts on every copy by coincidence and earn partial closeness;
 * - a statement whose result can change between runs on the same data (a random draw or the clock:
 *   src/sql/nondeterministic.ts) earns 0 unless it is the gold itself: the copies make a chance match unlikely, not
 *   impossible — a random digit among small counts (`SELECT abs(random()) % 10` where the gold's counts are 1–3)
 *   meets the gold on the database and on all four copies a few times in a thousand tries, which the adversarial
 *   audit found;
 * - a gold whose result is the same on every copy (32 of Spider's 923 dev golds: a count that stays 0, an empty
 *   result) cannot tell a guess from a reading — `SELECT 0 FROM concert LIMIT 1` reads the gold's table and agrees
 *   everywhere. No data test is sound there, so only the gold itself (up to case, spacing, quoting and `AS`,
 *   action-key.ts) earns closeness on such a question; every other statement earns 0.
 */
import type { CopiesRun } from '../sql/types.ts';

/**
 * Closeness below this is counted as 0: one cell met by chance in a large gold (a random digit among a thousand
 * counts, on the database and on every copy) gives ~0.001, which is noise, not reading. An honest partial result
 * shares far more than 1 % of the gold's cells or rows.
 */
export const MIN_CLOSENESS = 0.01;
import { resultSimilarity } from './similarity.ts';
import { executionMatch, type ResultTable } from './verifier.ts';

/** Whether the gold's result is the same on every copy that could judge (so data changes do not move it). */
export function goldIsInvariant(run: CopiesRun, gold: ResultTable, orderMatters: boolean): boolean {
  return run.copies.every((c) => c.gold === null || executionMatch(gold, c.gold, orderMatters));
}

/**
 * The closeness of a statement whose result on the database itself has similarity `realSimilarity` to the gold,
 * given its runs and the gold's on the copies.
 */
export function closenessOnCopies(real: ResultTable, realSimilarity: number, run: CopiesRun, gold: ResultTable, orderMatters: boolean, statementIsGold: boolean): number {
  const judges = run.copies.filter((c) => c.gold !== null && !c.gold.truncated);
  if (judges.length === 0 || realSimilarity === 0) return 0;
  const goldFixed = goldIsInvariant(run, gold, orderMatters);
  const resultFixed = run.copies.every((c) => c.result !== null && executionMatch(real, c.result, false));
  if (resultFixed && !goldFixed) return 0;
  let closeness = realSimilarity;
  for (const copy of judges) {
    if (copy.gold === null) continue;
    const sim = copy.result === null || copy.result.truncated ? 0 : resultSimilarity(copy.result, copy.gold, orderMatters);
    closeness = Math.min(closeness, sim);
    if (closeness === 0) return 0;
  }
  if (goldFixed && !statementIsGold) return 0;
  return closeness < MIN_CLOSENESS ? 0 : closeness;
}
