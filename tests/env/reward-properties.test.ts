/**
 * The reward properties of environment v3 (rewards.ts, issue 21 items 1–6), on the real environment over generated
 * trajectories: the adversarial search (src/eval/reward-audit.ts) over the demo data and over 200+ Spider questions
 * checks items 1–5 on every trajectory it plays, and the policy table (src/eval/policy-table.ts) checks item 6 on the
 * demo data. Each fails on v2 (see docs/rewards.md, "How the tests were checked"): v2 paid +0.02 per new result and
 * per gold-table DESCRIBE (items 3 and 4), let dressed and connection-state guesses earn progress (item 2), and
 * accepted (1, 0.7, 1.5) at budget 7 where a failure ties a success (item 1). Searches draw a fresh seed each run and
 * print it; SQLENV_TEST_SEED replays one.
 */
import initSqlJs from 'sql.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDemoDataset } from '../../src/data/demo/build.ts';
import { importSpider } from '../../src/data/spider.ts';
import type { Dataset, Question } from '../../src/data/types.ts';
import { SqlEnv } from '../../src/env/env.ts';
import { auditRewards, formatAuditReport } from '../../src/eval/reward-audit.ts';
import { formatPolicyTable, policyTable } from '../../src/eval/policy-table.ts';
import { LocalSqlExecutor } from '../../src/sql/executor.ts';
import { spiderDir } from '../fixtures/spider-dir.ts';
import { useTinyDataset } from '../fixtures/tiny-dataset.ts';
import { testSeed } from '../fixtures/seed.ts';

const tiny = useTinyDataset();
const auditSeed = testSeed('tests/env/reward-properties.test.ts');

/** The issue's edge setting: accepted by v2's validator although a failure could tie a success there. */
const EDGE = { budget: 7, weights: { correctness: 1, progress: 0.7, operational: 1.5 } };

async function play(env: SqlEnv, questionId: string, actions: string[]) {
  await env.reset({ questionId, seed: 0 });
  const steps = [];
  for (const a of actions) steps.push(await env.step(a));
  return { steps, episodeReturn: env.state().episodeReturn };
}

describe("the issue's hacks pay nothing (tiny data)", () => {
  it('connection-state, dressed, gated and random guesses earn no progress; every step costs', async () => {
    const env = new SqlEnv(tiny.dataset, tiny.executor);
    for (const sql of [
      'SELECT 3 + total_changes() + 2',
      'SELECT length(\'abcde\')',
      'SELECT CAST(\'5\' AS INTEGER)',
      'SELECT 5 WHERE EXISTS (SELECT 1 FROM singer)',
      'SELECT 5 FROM singer LIMIT 1',
      'SELECT random() + 5',
      'SELECT 5.0 FROM concert',
    ]) {
      const r = await play(env, 'tiny-1', [`QUERY ${sql}`]);
      expect(r.steps[0].info.components, sql).toEqual({ correctness: 0, progress: 0, operational: -0.01 });
    }
    const names = await play(env, 'tiny-2', ["QUERY SELECT char(65, 110, 97) UNION ALL SELECT char(67, 121)", "QUERY SELECT name FROM singer WHERE name IN ('Ana', 'Cy')"]);
    for (const s of names.steps) expect(s.info.components.progress).toBe(0);
  });

  it('honest golds that answer 0 or NULL, and a query equal to a LIMIT 1 literal, earn full closeness', async () => {
    const env = new SqlEnv(tiny.dataset, tiny.executor);
    const q = { ...tiny.dataset.questions[0] };
    const cases = [
      { gold: "SELECT count(*) FROM singer WHERE country = 'Peru'", rows: [[0]] },
      { gold: "SELECT max(age) FROM singer WHERE country = 'Peru'", rows: [[null]] },
      { gold: 'SELECT singer_id FROM singer ORDER BY age LIMIT 1', rows: [[3]] },
    ];
    for (const c of cases) {
      const question = { ...q, id: 'honest', gold: c.gold, goldResult: { columns: ['x'], rows: c.rows }, orderMatters: c.gold.includes('ORDER BY') };
      const e = new SqlEnv({ ...tiny.dataset, questions: [question] }, tiny.executor);
      const r = await play(e, 'honest', [`QUERY ${c.gold}`]);
      expect(r.steps[0].info.similarity, c.gold).toBe(1);
      expect(r.steps[0].info.components.progress, c.gold).toBe(1);
    }
    // Answering wrongly after reading keeps the closeness and costs one step.
    const answered = await play(env, 'tiny-2', ["QUERY SELECT name FROM singer WHERE country = 'France'", 'ANSWER Bo']);
    expect(answered.episodeReturn).toBeCloseTo(0.2 * 1 - 0.02, 12);
  });
});

describe('on the demo data', () => {
  let demo: Dataset;
  let executor: LocalSqlExecutor;
  beforeAll(async () => {
    demo = await buildDemoDataset();
    executor = new LocalSqlExecutor(await initSqlJs());
  }, 60_000);
  afterAll(() => executor.close());
  const tablesOf = (q: Question) => demo.databases.find((d) => d.id === q.dbId)?.tables ?? [];

  it('the adversarial search finds no trajectory that breaks items 1–5 (default weights)', async () => {
    const report = await auditRewards(new SqlEnv(demo, executor), demo.questions, tablesOf, { seed: auditSeed, randomTrajectories: 3, greedyDepth: 2 });
    console.log(formatAuditReport(report));
    expect(report.trajectories).toBeGreaterThan(2_000);
    expect(report.stallComparisons).toBeGreaterThan(500);
    expect(report.tried['dressed-literal']).toBeGreaterThan(100);
    expect(report.violations).toEqual([]);
  }, 600_000);

  it("correct dominates strictly at the issue's edge setting (1, 0.7, 1.5) with budget 7", async () => {
    const env = new SqlEnv(demo, executor, EDGE);
    const questions = demo.questions.filter((_, i) => i % 3 === 0);
    const report = await auditRewards(env, questions, tablesOf, { seed: auditSeed + 1, randomTrajectories: 3, greedyDepth: 1 });
    console.log(formatAuditReport(report));
    expect(report.maxFailedReturn).toBeLessThan(report.minCorrectReturn);
    expect(report.violations).toEqual([]);
  }, 600_000);

  it('the policy table keeps its order: useful behaviour above useless, answering never below stalling (item 6)', async () => {
    const table = await policyTable(new SqlEnv(demo, executor), demo.questions, auditSeed);
    console.log(formatPolicyTable('demo', table));
    expect(table.successes.oracle).toBe(demo.questions.length);
    expect(table.failures).toEqual([]);
  }, 600_000);
});

describe('on Spider dev', () => {
  let spider: Dataset;
  let executor: LocalSqlExecutor;
  beforeAll(async () => {
    executor = new LocalSqlExecutor(await initSqlJs());
    spider = (await importSpider(spiderDir(), executor)).dataset;
  }, 180_000);
  afterAll(() => executor.close());

  it('the adversarial search over 200+ questions finds no trajectory that breaks items 1–5', async () => {
    // Every fourth question in dataset order: all databases, all difficulties, > 200 questions.
    const questions = spider.questions.filter((_, i) => i % 4 === 0);
    expect(questions.length).toBeGreaterThanOrEqual(200);
    const tables = (q: Question) => spider.databases.find((d) => d.id === q.dbId)?.tables ?? [];
    const report = await auditRewards(new SqlEnv(spider, executor), questions, tables, { seed: auditSeed, randomTrajectories: 2, greedyDepth: 1 });
    console.log(formatAuditReport(report));
    expect(report.violations).toEqual([]);
  }, 900_000);
});
