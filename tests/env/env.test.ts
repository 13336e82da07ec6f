import initSqlJs from 'sql.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dataset } from '../../src/data/types.ts';
import { FREE_PLAY_BUDGET } from '../../src/data/free-play.ts';
import { EnvUsageError, SqlEnv } from '../../src/env/env.ts';
import { OPERATIONAL } from '../../src/env/rewards.ts';
import { createNodeSqlExecutor } from '../../src/sql/node-worker.ts';
import type { WorkerSqlExecutor } from '../../src/sql/worker-executor.ts';
import { buildTinyDataset, tinyDatabaseBytes } from '../fixtures/tiny-dataset.ts';

let dataset: Dataset;
let executor: WorkerSqlExecutor;

beforeAll(async () => {
  dataset = await buildTinyDataset();
  executor = createNodeSqlExecutor();
});
afterAll(() => executor.close());

function newEnv(config = {}): SqlEnv {
  return new SqlEnv(dataset, executor, { queryTimeoutMs: 800, ...config });
}

describe('SqlEnv.reset', () => {
  it('gives the question, database, tables and budget as text and fields', async () => {
    const env = newEnv();
    const { observation, info } = await env.reset({ questionId: 'tiny-1' });
    expect(observation.text).toContain('Question: How many singers are there?');
    expect(observation.text).toContain('Database: concerts');
    expect(observation.text).toContain('Tables: singer, concert, performs');
    expect(observation.text).toContain('Steps left: 10');
    expect(observation.tables).toEqual(['singer', 'concert', 'performs']);
    expect(info).toMatchObject({ questionId: 'tiny-1', difficulty: 'easy', split: 'train' });
  });

  it('chooses the same question for the same seed and filters, and covers the split across seeds', async () => {
    const env = newEnv();
    const ids = [];
    for (let seed = 0; seed < 40; seed++) {
      const a = await env.reset({ seed, split: 'train' });
      const b = await env.reset({ seed, split: 'train' });
      expect(a.info.questionId).toBe(b.info.questionId);
      ids.push(a.info.questionId);
    }
    expect(new Set(ids)).toEqual(new Set(['tiny-1', 'tiny-2', 'tiny-5']));
    expect((await env.reset({ seed: 3, split: 'eval', difficulty: 'medium' })).info.split).toBe('eval');
  });

  it('reports a seed it drew itself, which replays the same question', async () => {
    const env = newEnv();
    const first = await env.reset({ split: 'all' });
    expect((await env.reset({ split: 'all', seed: first.info.seed })).info.questionId).toBe(first.info.questionId);
  });

  it('explains an unknown question or an empty filter', async () => {
    const env = newEnv();
    await expect(env.reset({ questionId: 'nope' })).rejects.toThrow(EnvUsageError);
    await expect(env.reset({ split: 'heldout' })).rejects.toThrow(/No question/);
  });
});

describe('SqlEnv.step', () => {
  it('describes, samples, queries and answers, with the reward parts in info', async () => {
    const env = newEnv();
    await env.reset({ questionId: 'tiny-2' });
    const d = await env.step('DESCRIBE singer');
    expect(d.observation.text).toMatch(/Table singer \(5 rows\), columns:/);
    expect(d.observation.table?.columns.map((c) => c.name)).toEqual(['singer_id', 'name', 'country', 'age', 'net_worth']);
    expect(d.info.components).toEqual({ correctness: 0, progress: 0, operational: OPERATIONAL.step });
    const s = await env.step('SAMPLE singer');
    expect(s.observation.result?.rows).toHaveLength(5);
    const q = await env.step("QUERY SELECT name FROM singer WHERE country = 'France'");
    expect(q.info.similarity).toBe(1);
    expect(q.info.components.progress).toBe(1);
    expect(q.observation.text).toContain('Ana');
    const a = await env.step('ANSWER Ana, Cy');
    expect(a.done).toBe(true);
    expect(a.info).toMatchObject({ terminated: true, truncated: false, correct: true });
    expect(a.info.components.correctness).toBe(1);
    expect(a.info.episodeReturn).toBeCloseTo(d.reward + s.reward + q.reward + a.reward);
    expect(env.state()).toMatchObject({ done: true, stepsUsed: 4, stepsLeft: 6, bestSimilarity: 1 });
  });

  it('charges a wrong answer exactly one step, keeps Φ, and ends the episode', async () => {
    const env = newEnv();
    await env.reset({ questionId: 'tiny-2' });
    const q = await env.step("QUERY SELECT name, age FROM singer WHERE country = 'France'");
    expect(q.info.components.progress).toBeGreaterThan(0);
    const a = await env.step({ type: 'ANSWER', value: 4 });
    expect(a.info).toMatchObject({ correct: false, terminated: true, bestSimilarity: q.info.bestSimilarity });
    expect(a.info.components).toEqual({ correctness: 0, progress: 0, operational: -0.01 });
    expect(a.reward).toBe(-0.01);
  });

  it.each([
    ['DESCRIBE nosuch', /Unknown table 'nosuch'. Tables: singer, concert, performs/],
    ['SAMPLE', /needs a table name/],
    ['FLY away', /Unknown action 'FLY'/],
    ['QUERY DELETE FROM singer', /DELETE is not allowed/],
    ['QUERY SELECT 1; DROP TABLE singer', /Only one statement/],
    ["QUERY ATTACH 'x' AS y", /ATTACH is not allowed/],
    ['QUERY SELECT nope FROM singer', /no such column: nope/],
    ['QUERY WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT max(x) FROM c', /time limit/],
  ])('turns %j into an error observation that costs a step and a penalty', async (action, message) => {
    const env = newEnv();
    await env.reset({ questionId: 'tiny-1' });
    const r = await env.step(action);
    expect(r.observation.error).toMatch(message);
    expect(r.observation.text).toContain('Error:');
    expect(r.info.outcome).toBe('error');
    expect(r.info.components.operational).toBe(OPERATIONAL.error);
    expect(r.observation.stepsLeft).toBe(9);
    const next = await env.step('QUERY SELECT count(*) FROM singer');
    expect(next.observation.result?.rows).toEqual([[5]]);
  });

  it('gives nothing for repeats: no progress, a repeat penalty', async () => {
    const env = newEnv();
    await env.reset({ questionId: 'tiny-1' });
    const first = await env.step('QUERY SELECT count(*) FROM singer');
    const again = await env.step('query   select count(*) from singer;'.replace('select count(*) from singer', 'SELECT count(*) FROM singer'));
    expect(first.info.components.progress).toBe(1);
    expect(again.info.outcome).toBe('repeat');
    expect(again.info.components).toEqual({ correctness: 0, progress: 0, operational: OPERATIONAL.repeat });
    expect(again.reward).toBeLessThan(0);
    const sameResult = await env.step('QUERY SELECT count(singer_id) FROM singer');
    expect(sameResult.info.outcome).toBe('nothing-new');
    expect(sameResult.info.components).toEqual({ correctness: 0, progress: 0, operational: -0.01 });
  });

  it('truncates when the budget runs out and refuses further steps', async () => {
    const env = newEnv({ budget: 3 });
    await env.reset({ questionId: 'tiny-1' });
    await env.step('DESCRIBE singer');
    await env.step('DESCRIBE concert');
    const last = await env.step('DESCRIBE performs');
    expect(last.done).toBe(true);
    expect(last.info).toMatchObject({ truncated: true, terminated: false, correct: null });
    expect(last.observation.text).toContain('No steps left');
    await expect(env.step('ANSWER 5')).rejects.toThrow(EnvUsageError);
  });

  it('states truncation of long results and keeps the full result for progress', async () => {
    const env = newEnv({ maxObservationRows: 2 });
    await env.reset({ questionId: 'tiny-3' });
    const r = await env.step('QUERY SELECT name, age FROM singer ORDER BY age DESC');
    expect(r.observation.text).toContain('showing 2 of 5 rows; 3 more not shown');
    expect(r.observation.result?.rows).toHaveLength(2);
    expect(r.info.similarity).toBe(1);
  });

  it('refuses to step before reset, and close twice is harmless', async () => {
    const env = newEnv();
    await expect(env.step('DESCRIBE singer')).rejects.toThrow(/reset\(\)/);
    env.close();
    env.close();
    expect(() => env.state()).toThrow(EnvUsageError);
  });

  it('starts every episode from a pristine database', async () => {
    const env = newEnv();
    await env.reset({ questionId: 'tiny-1' });
    await env.step('QUERY DELETE FROM singer');
    await env.reset({ questionId: 'tiny-1' });
    expect((await env.step('QUERY SELECT count(*) FROM singer')).observation.result?.rows).toEqual([[5]]);
  });

  it('pays no closeness for a statement that draws at random, even when its result follows the gold everywhere', async () => {
    const env = newEnv();
    await env.reset({ questionId: 'tiny-1' });
    // random() IS NOT NULL is always true: the result is count(*), which follows the gold on every copy.
    const drawn = await env.step('QUERY SELECT count(*) FROM singer WHERE random() IS NOT NULL');
    expect(drawn.observation.result?.rows).toEqual([[5]]);
    expect(drawn.info.components.progress).toBe(0);
    const read = await env.step('QUERY SELECT count(*) FROM singer WHERE singer_id IS NOT NULL');
    expect(read.info.components.progress).toBe(1);
  });
});

describe('free play', () => {
  it('explores a database without a gold answer and gives no correctness or progress reward', async () => {
    const question = { ...dataset.questions[0], id: 'free', question: 'Free play', freePlay: true, goldResult: { columns: [], rows: [] } };
    const env = new SqlEnv({ ...dataset, questions: [question] }, executor);
    await env.reset({ questionId: 'free' });
    const q = await env.step('QUERY SELECT count(*) FROM singer');
    expect(q.observation.result?.rows).toEqual([[5]]);
    expect(q.info.components.progress).toBe(0);
    const a = await env.step('ANSWER 5');
    expect(a.observation.text).toContain('no gold answer');
    expect(a.info.components.correctness).toBe(0);
  });

  it('keeps its own budget (FREE_PLAY_BUDGET), not the 10 steps of a question, while a question keeps the configured one', async () => {
    const question = { ...dataset.questions[0], id: 'free', question: 'Free play', freePlay: true, goldResult: { columns: [], rows: [] } };
    const env = new SqlEnv({ ...dataset, questions: [question, dataset.questions[0]] }, executor, { budget: 3 });
    const reset = await env.reset({ questionId: 'free' });
    expect(reset.observation.stepsLeft).toBe(FREE_PLAY_BUDGET);
    expect(reset.observation.text).toContain(`Steps left: ${FREE_PLAY_BUDGET}`);
    for (let i = 1; i <= 4; i++) {
      const r = await env.step(`QUERY SELECT ${i}`);
      expect(r.done, `step ${i}`).toBe(false);
      expect(r.observation.stepsLeft).toBe(FREE_PLAY_BUDGET - i);
    }
    expect(env.state().stepsLeft).toBe(FREE_PLAY_BUDGET - 4);
    expect((await env.reset({ questionId: dataset.questions[0].id })).observation.stepsLeft).toBe(3);
    for (let i = 1; i <= 3; i++) expect((await env.step(`QUERY SELECT ${i}`)).info.truncated).toBe(i === 3);
  });
});

/** A copy of the tiny dataset whose database is replaced by `build(db)` run on the tiny database. */
async function datasetWith(build: string): Promise<Dataset> {
  const SQL = await initSqlJs();
  const db = new SQL.Database(await tinyDatabaseBytes());
  db.run(build);
  const bytes = db.export();
  db.close();
  return { ...dataset, loadDatabase: async () => bytes };
}

describe('a database with many tables (issue 22, item 8)', () => {
  it('lists at most maxObservationTables tables, says how many more, and every table still works by name', async () => {
    const extra = Array.from({ length: 250 }, (_, i) => `CREATE TABLE extra_${i} (a);`).join('\n');
    const many = await datasetWith(extra);
    const env = new SqlEnv(many, executor, { maxObservationTables: 20 });
    const { observation } = await env.reset({ questionId: 'tiny-1' });
    expect(observation.tables).toHaveLength(20);
    expect(observation.tablesNotShown).toBe(253 - 20);
    expect(observation.text).toContain('… and 233 more');
    expect(observation.text).not.toContain('extra_100');
    const unknown = await env.step('DESCRIBE nope');
    expect(unknown.observation.error).toContain('… and 233 more');
    expect(unknown.observation.error?.length).toBeLessThan(600);
    expect(unknown.observation.tables).toHaveLength(20);
    const far = await env.step('DESCRIBE extra_200');
    expect(far.observation.table?.name).toBe('extra_200');
  });
});

describe('a database whose tables have triggers (issue 22, item 9)', () => {
  it('pays closeness as usual: the perturbed copies are built without firing them', async () => {
    const guarded = await datasetWith(`
      CREATE TRIGGER keep_singers BEFORE DELETE ON singer BEGIN SELECT RAISE(ABORT, 'never'); END;
      CREATE TRIGGER keep_concerts BEFORE INSERT ON singer BEGIN SELECT RAISE(ABORT, 'never'); END;
    `);
    const env = new SqlEnv(guarded, executor);
    await env.reset({ questionId: 'tiny-2' });
    const gold = await env.step("QUERY SELECT name FROM singer WHERE country = 'France'");
    expect(gold.info.similarity).toBe(1);
    await env.reset({ questionId: 'tiny-2' });
    // Had a trigger stopped the copies' rewrite, the singer table would be the same on every copy and this literal
    // would match the gold everywhere.
    const guess = await env.step("QUERY SELECT name FROM singer WHERE name IN ('Ana', 'Cy')");
    expect(guess.info.similarity).toBe(0);
  });
});
