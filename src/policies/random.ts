/**
 * Random: a seeded baseline that takes valid actions at random. It explores tables and columns it has seen
 * (DESCRIBE, SAMPLE, simple queries built from described columns) and answers with probability `answerProbability`
 * per step, with a value picked from what it has seen. Its success rate is the floor every learned policy must beat.
 */
import { pick, randomInt, type Rng } from '../data/rng.ts';
import { quoteIdentifier } from '../sql/engine.ts';
import { formatCell } from '../env/format.ts';
import type { Action } from '../env/actions.ts';
import type { Policy, PolicyContext, PolicyDecision } from './policy.ts';

function randomQuery(rng: Rng, table: string, columns: readonly string[]): string {
  const t = quoteIdentifier(table);
  const col = columns.length > 0 ? quoteIdentifier(pick(rng, columns)) : '*';
  const templates = [
    `SELECT * FROM ${t} LIMIT ${1 + randomInt(rng, 10)}`,
    `SELECT count(*) FROM ${t}`,
    `SELECT ${col} FROM ${t}`,
    `SELECT DISTINCT ${col} FROM ${t}`,
    `SELECT ${col}, count(*) FROM ${t} GROUP BY ${col}`,
    `SELECT max(${col}) FROM ${t}`,
  ];
  return pick(rng, columns.length > 0 ? templates : templates.slice(0, 2));
}

export class RandomPolicy implements Policy {
  readonly name = 'random';
  private readonly answerProbability: number;

  constructor(answerProbability = 0.15) {
    this.answerProbability = answerProbability;
  }

  async act(context: PolicyContext): Promise<PolicyDecision> {
    const { rng, first, history } = context;
    const columns = new Map<string, string[]>();
    const seenValues: string[] = [];
    for (const h of history) {
      if (h.observation.table) columns.set(h.observation.table.name, h.observation.table.columns.map((c) => c.name));
      for (const row of h.observation.result?.rows ?? []) for (const v of row) if (v !== null && formatCell(v).trim() !== '') seenValues.push(formatCell(v));
    }
    const lastStep = context.observation.stepsLeft <= 1;
    if (lastStep || rng.next() < this.answerProbability) {
      const value = seenValues.length > 0 ? pick(rng, seenValues) : String(randomInt(rng, 100));
      return { action: { type: 'ANSWER', value } };
    }
    const table = pick(rng, first.tables);
    const kind = randomInt(rng, 3);
    const action: Action =
      kind === 0 ? { type: 'DESCRIBE', table } : kind === 1 ? { type: 'SAMPLE', table } : { type: 'QUERY', sql: randomQuery(rng, table, columns.get(table) ?? []) };
    return { action };
  }
}
