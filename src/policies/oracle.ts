/**
 * Oracle: knows the gold SQL. It DESCRIBEs the tables the gold SQL uses (as many as the budget allows while
 * leaving two steps), runs the gold SQL, then ANSWERs with the gold result. An upper bound for every other policy,
 * and the source of SFT demonstrations.
 */
import type { GoldResult } from '../data/types.ts';
import { tablesNamedBy } from '../env/provenance.ts';
import { blobHex } from '../env/verifier.ts';
import type { SqlValue } from '../sql/types.ts';
import type { Policy, PolicyContext, PolicyDecision } from './policy.ts';

/** Tables of `tables` that `sql` mentions, in order of first mention (the environment's rule for relevant tables). */
export const tablesUsed = tablesNamedBy;

/** A cell as an answer can carry it: BLOBs as hex text, which the answer verifier reads. */
function answerCell(value: SqlValue): string | number | null {
  return value instanceof Uint8Array ? blobHex(value) : value;
}

/** The gold result written as an ANSWER value: a scalar for 1×1, a JSON list for one column, else JSON rows. */
export function answerText(gold: GoldResult): string {
  const rows = gold.rows.map((r) => r.map(answerCell));
  if (rows.length === 1 && gold.columns.length === 1) {
    const value = rows[0][0];
    return typeof value === 'string' ? value : JSON.stringify(value);
  }
  if (gold.columns.length === 1) return JSON.stringify(rows.map((r) => r[0]));
  return JSON.stringify(rows);
}

export class OraclePolicy implements Policy {
  readonly name = 'oracle';

  async act(context: PolicyContext): Promise<PolicyDecision> {
    const { question, history, first } = context;
    const stepsLeft = context.observation.stepsLeft;
    const describable = tablesUsed(question.gold, first.tables).slice(0, Math.max(0, stepsLeft + history.length - 2));
    const step = history.length;
    if (step < describable.length && stepsLeft > 2) return { action: { type: 'DESCRIBE', table: describable[step] } };
    const queried = history.some((h) => h.action.type === 'QUERY');
    if (!queried && stepsLeft > 1) return { action: { type: 'QUERY', sql: question.gold } };
    return { action: { type: 'ANSWER', value: answerText(question.goldResult) } };
  }
}
