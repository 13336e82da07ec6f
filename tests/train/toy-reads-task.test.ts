/**
 * The "reads" toy task (src/train/toy-reads-task.ts): the exact fixed-answer ceiling against values worked out by
 * hand, contents and answers that change with the content seed (seeds drawn anew per run and printed), the answers
 * the task states against what SQLite returns for the gold SQL, the tokenizer's promises (values are the same single
 * token in observations and answers; tool calls are single tokens), and the Oracle solving every question within
 * the run's 3-turn budget.
 */
import initSqlJs, { type SqlJsStatic } from 'sql.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { createRng, randomInt } from '../../src/data/rng.ts';
import { LocalSqlExecutor } from '../../src/sql/executor.ts';
import { buildSftExamples } from '../../src/train/sft.ts';
import { copiesObservation } from '../../src/train/toy-reads-run.ts';
import type { RolledEpisode } from '../../src/train/rollout.ts';
import {
  buildReadsDataset,
  createReadsTokenizer,
  drawContent,
  enumerateOutcomes,
  fixedAnswerCeiling,
  READS_NAMES,
  READS_TEMPLATES,
  READS_TITLES,
  readsDbId,
} from '../../src/train/toy-reads-task.ts';
import { SqlEnv } from '../../src/env/env.ts';
import { DEFAULT_REWARD_WEIGHTS } from '../../src/env/rewards.ts';
import { testSeed } from '../fixtures/seed.ts';

const runSeed = testSeed('tests/train/toy-reads-task.test.ts');
const rng = createRng(runSeed);
const seeds = Array.from({ length: 40 }, () => randomInt(rng, 1_000_000_000));

let sql: SqlJsStatic;
beforeAll(async () => {
  sql = await initSqlJs();
});

describe('enumerateOutcomes', () => {
  it('lists every path of choices with its exact probability', () => {
    // First choice of 2; on 0 a second choice of 3. Paths: (0,0) (0,1) (0,2) at 1/6 each, (1) at 1/2.
    const out = enumerateOutcomes((choose) => (choose(2) === 0 ? `a${choose(3)}` : 'b'));
    expect(out.map((o) => o.value)).toEqual(['a0', 'a1', 'a2', 'b']);
    expect(out.map((o) => o.p)).toEqual([1 / 6, 1 / 6, 1 / 6, 1 / 2]);
  });
});

describe('fixed-answer ceiling', () => {
  it('equals the hand-derived rates: counts uniform on 2..5, every name or title equally likely to be the extreme', () => {
    const { rate, rows } = fixedAnswerCeiling();
    // Counts: 4 values, uniform → 1/4. Oldest/youngest: by symmetry each of 6 names → 1/6. Latest: each of 5 titles → 1/5.
    const byHand: Record<string, number> = { singers: 1 / 4, concerts: 1 / 4, oldest: 1 / 6, youngest: 1 / 6, latest: 1 / 5 };
    for (const r of rows) expect(r.p, r.template).toBeCloseTo(byHand[r.template], 10);
    expect(rate).toBeCloseTo((1 / 4 + 1 / 4 + 1 / 6 + 1 / 6 + 1 / 5) / 5, 10);
    // Singers: n names in order (6!/(6−n)!) × age ranking (n!) summed over n = 2..5.
    const perm = (n: number, k: number) => Array.from({ length: k }, (_, i) => n - i).reduce((a, b) => a * b, 1);
    const fact = (n: number) => perm(n, n);
    expect(rows.find((r) => r.template === 'oldest')!.outcomes).toBe([2, 3, 4, 5].reduce((s, n) => s + perm(6, n) * fact(n), 0));
  });
});

describe('contents drawn per database', () => {
  it("gives each question several answers across databases, and the task's answer is what SQLite returns", async () => {
    const dataset = await buildReadsDataset(sql, seeds.map((seed) => ({ seed, split: 'train' as const })));
    for (const t of READS_TEMPLATES) {
      const answers = seeds.map((seed) => t.answer(drawContent(seed)));
      expect(new Set(answers).size, `${t.id} takes several values over 40 databases (seed ${runSeed})`).toBeGreaterThanOrEqual(3);
      for (const [i, seed] of seeds.entries()) {
        const q = dataset.questions.find((x) => x.id === `${readsDbId(seed)}-${t.id}`)!;
        expect(q.goldResult.rows, `${q.id} (seed ${runSeed})`).toEqual([[answers[i]]]);
      }
    }
  });

  it('refuses a content seed listed twice', async () => {
    await expect(buildReadsDataset(sql, [{ seed: 3, split: 'train' }, { seed: 3, split: 'eval' }])).rejects.toThrow(/listed twice/);
  });
});

describe('reads tokenizer', () => {
  const tok = createReadsTokenizer();
  const one = (text: string) => {
    const ids = tok.encode(text);
    expect(ids, JSON.stringify(text)).toHaveLength(1);
    return ids[0];
  };

  it('keeps each value one token, the same in an observation and in an answer', () => {
    for (const v of [2, 3, 4, 5, ...READS_NAMES, ...READS_TITLES]) {
      const id = one(String(v));
      const observation = tok.encode(`name\n----\n${v}\n(1 row)\nSteps left: 2`);
      expect(observation.filter((x) => x === id), `${v} in an observation`).toHaveLength(1);
      const call = `<tool_call>\n{"name": "answer", "arguments": {"value": ${typeof v === 'number' ? v : JSON.stringify(v)}}}\n</tool_call>`;
      const ids = tok.encode(call);
      expect(ids, call).toHaveLength(3);
      expect(ids[1]).toBe(id);
      expect(tok.decode(ids)).toBe(call);
    }
  });

  it('makes DESCRIBE, SAMPLE and every gold QUERY one token; step counters are not values', () => {
    for (const table of ['singer', 'concert']) {
      one(`<tool_call>\n{"name": "describe", "arguments": {"table": "${table}"}}\n</tool_call>`);
      one(`<tool_call>\n{"name": "sample", "arguments": {"table": "${table}"}}\n</tool_call>`);
    }
    for (const t of READS_TEMPLATES) one(`<tool_call>\n{"name": "query", "arguments": {"sql": "${t.gold}"}}\n</tool_call>`);
    expect(tok.encode('Steps left: 3')).not.toContain(tok.encode('3')[0]);
    expect(tok.encode(readsDbId(2345))).not.toContain(tok.encode('2')[0]);
  });
});

describe('the Oracle on the reads task', () => {
  it('answers every question correctly in 3 steps, copying a value the QUERY showed', async () => {
    const dataset = await buildReadsDataset(sql, seeds.slice(0, 4).map((seed) => ({ seed, split: 'train' as const })));
    const executor = new LocalSqlExecutor(sql);
    const createEnv = () => new SqlEnv(dataset, executor, { budget: 3, weights: DEFAULT_REWARD_WEIGHTS });
    const { examples, skipped } = await buildSftExamples(createReadsTokenizer(), createEnv, dataset.questions, { thinking: false, maxEpisodeTokens: 128, rewardWeights: DEFAULT_REWARD_WEIGHTS });
    await executor.close();
    expect(skipped).toEqual([]);
    for (const e of examples) {
      expect(e.correct, e.questionId).toBe(true);
      expect(e.actions.map((a) => a.action.split(' ')[0])).toEqual(['DESCRIBE', 'QUERY', 'ANSWER']);
    }
  });
});

describe('copiesObservation', () => {
  const episode = (observations: string[], answer: string): RolledEpisode =>
    ({
      turns: [
        ...observations.map((observation) => ({ observation, action: { type: 'QUERY', sql: 'x' } })),
        { observation: 'Answer submitted', action: { type: 'ANSWER', value: answer } },
      ],
    }) as unknown as RolledEpisode;

  it('counts a value shown as a whole word before the answer, and nothing else', () => {
    expect(copiesObservation(episode(['name\n----\nChen\n(1 row)'], 'Chen'))).toBe(true);
    expect(copiesObservation(episode(['Table singer (4 rows)'], '4'))).toBe(true);
    expect(copiesObservation(episode(['Table singer (4 rows)'], 'Chen'))).toBe(false);
    expect(copiesObservation(episode(['Steps left: 14'], '4'))).toBe(false);
    expect(copiesObservation(episode([], 'Chen'))).toBe(false);
  });
});
