/**
 * The reward properties of rewards.ts, on the real environment: the defects that made the v1 reward gameable, the
 * adversarial search (src/eval/reward-audit.ts) over the demo data and over 200+ Spider questions, the dense signal
 * among failures (Random < an explorer that answers wrongly < Oracle), and the same trajectory for the same seed.
 * Searches draw a fresh seed each run and print it; REWARD_AUDIT_SEED replays one.
 */
import initSqlJs from 'sql.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDemoDataset } from '../../src/data/demo/build.ts';
import { importSpider } from '../../src/data/spider.ts';
import type { Dataset, Question } from '../../src/data/types.ts';
import { SqlEnv } from '../../src/env/env.ts';
import { correctEpisodeReturn, DEFAULT_REWARD_WEIGHTS, maxReturnWithoutCorrectAnswer, OPERATIONAL, STEP_COST } from '../../src/env/rewards.ts';
import { runEpisode } from '../../src/eval/episode.ts';
import { auditRewards, formatAuditReport } from '../../src/eval/reward-audit.ts';
import { answerText, OraclePolicy, tablesUsed } from '../../src/policies/oracle.ts';
import type { Policy, PolicyContext, PolicyDecision } from '../../src/policies/policy.ts';
import { RandomPolicy } from '../../src/policies/random.ts';
import { LocalSqlExecutor } from '../../src/sql/executor.ts';
import { spiderDir } from '../fixtures/spider-dir.ts';
import { useTinyDataset } from '../fixtures/tiny-dataset.ts';

const tiny = useTinyDataset();
const auditSeed = Number(process.env.REWARD_AUDIT_SEED ?? Math.floor(Math.random() * 2 ** 31));
console.log(`reward audit seed ${auditSeed} (replay with REWARD_AUDIT_SEED=${auditSeed})`);

async function play(env: SqlEnv, questionId: string, actions: string[]) {
  await env.reset({ questionId, seed: 0 });
  const steps = [];
  for (const a of actions) steps.push(await env.step(a));
  return { steps, episodeReturn: env.state().episodeReturn };
}

describe('the v1 hacks no longer pay (tiny data)', () => {
  it('constant queries and re-cased repeats earn nothing; padding lowers a correct return', async () => {
    const env = new SqlEnv(tiny.dataset, tiny.executor);
    const alone = await play(env, 'tiny-1', ['ANSWER 5']);
    expect(alone.episodeReturn).toBe(1);
    const constants = ['QUERY SELECT 1', 'QUERY SELECT 2', 'QUERY SELECT 3', 'QUERY SELECT 4', 'QUERY SELECT 5', 'QUERY SELECT 6', 'query select  1'];
    const padded = await play(env, 'tiny-1', [...constants, 'ANSWER 5']);
    for (const s of padded.steps.slice(0, 6)) {
      expect(s.reward).toBe(0);
      expect(s.info.outcome).toBe('content-free');
    }
    expect(padded.steps[6].info.outcome).toBe('repeat');
    expect(padded.steps[6].reward).toBe(OPERATIONAL.repeat);
    expect(padded.episodeReturn).toBeCloseTo(correctEpisodeReturn(DEFAULT_REWARD_WEIGHTS, 8));
    expect(padded.episodeReturn).toBeLessThan(alone.episodeReturn);
  });

  it('a literal guess of the answer earns no progress, alone or dressed as a query on a table', async () => {
    const env = new SqlEnv(tiny.dataset, tiny.executor);
    for (const sql of ['SELECT 5', 'SELECT 5 FROM singer LIMIT 1', "SELECT '5' FROM concert", 'SELECT 5, NULL FROM performs LIMIT 1']) {
      const r = await play(env, 'tiny-1', [`QUERY ${sql}`]);
      expect(r.steps[0].info.components, sql).toEqual({ correctness: 0, progress: 0, operational: 0 });
      expect(r.steps[0].info.outcome).toBe('content-free');
    }
    const real = await play(env, 'tiny-1', ['QUERY SELECT count(*) FROM singer']);
    expect(real.steps[0].info.components.progress).toBe(1);
    expect(real.steps[0].info.components.operational).toBe(OPERATIONAL.newInformation);
  });

  it('the potential is settled: a correct episode returns C(L) whatever it gathered, a failed one keeps its shaping', async () => {
    const env = new SqlEnv(tiny.dataset, tiny.executor);
    const explored = await play(env, 'tiny-2', ['DESCRIBE singer', 'SAMPLE singer', "QUERY SELECT name FROM singer WHERE country = 'France'", 'ANSWER ["Ana", "Cy"]']);
    expect(explored.steps[3].info.correct).toBe(true);
    expect(explored.episodeReturn).toBeCloseTo(1 - 3 * STEP_COST);
    const sums = explored.steps.reduce((a, s) => ({ p: a.p + s.info.components.progress, o: a.o + s.info.components.operational }), { p: 0, o: 0 });
    expect(sums.p).toBeCloseTo(0);
    expect(sums.o).toBeCloseTo(-3 * STEP_COST);
    const failed = await play(env, 'tiny-2', ['DESCRIBE singer', 'SAMPLE singer', "QUERY SELECT name FROM singer WHERE country = 'France'", 'ANSWER Bo']);
    expect(failed.episodeReturn).toBeGreaterThan(0);
    expect(failed.episodeReturn).toBeLessThan(explored.episodeReturn);
  });

  it('a first look at a table the question does not need pays nothing; one it needs pays', async () => {
    const env = new SqlEnv(tiny.dataset, tiny.executor);
    const r = await play(env, 'tiny-1', ['DESCRIBE concert', 'DESCRIBE singer', 'DESCRIBE SINGER']);
    expect(r.steps.map((s) => s.info.components.operational)).toEqual([OPERATIONAL.nothingNew, OPERATIONAL.newInformation, OPERATIONAL.repeat]);
  });
});

/** Reads the gold SQL's tables and runs the gold SQL, then answers wrongly: a close failure. */
class ExplorerPolicy implements Policy {
  readonly name = 'explorer';
  async act({ question, first, history }: PolicyContext): Promise<PolicyDecision> {
    const plan = [...tablesUsed(question.gold, first.tables).flatMap((t) => [`DESCRIBE ${JSON.stringify(t)}`, `SAMPLE ${JSON.stringify(t)}`]), `QUERY ${question.gold}`].slice(0, 7);
    if (history.length < plan.length) return { action: plan[history.length] };
    return { action: `ANSWER ${answerText(question.goldResult)} and more` };
  }
}

describe('on the demo data', () => {
  let demo: Dataset;
  let executor: LocalSqlExecutor;
  beforeAll(async () => {
    demo = await buildDemoDataset();
    executor = new LocalSqlExecutor(await initSqlJs());
  }, 60_000);
  afterAll(() => executor.close());

  it('the adversarial search finds no trajectory that breaks properties 1–4', async () => {
    const env = new SqlEnv(demo, executor);
    const tables = (q: Question) => demo.databases.find((d) => d.id === q.dbId)?.tables ?? [];
    const report = await auditRewards(env, demo.questions, tables, { seed: auditSeed, randomTrajectories: 20, greedyDepth: 3 });
    console.log(formatAuditReport(report));
    expect(report.trajectories).toBeGreaterThan(2_000);
    expect(report.violations).toEqual([]);
  }, 300_000);

  it('the signal stays dense: Random < an explorer that answers wrongly < Oracle, in mean return', async () => {
    const env = new SqlEnv(demo, executor);
    const mean = async (policy: Policy) => {
      let total = 0;
      let successes = 0;
      for (const [i, q] of demo.questions.entries()) {
        const r = await runEpisode(env, policy, { questionId: q.id, seed: auditSeed + i });
        total += r.episodeReturn;
        successes += r.success ? 1 : 0;
      }
      return { mean: total / demo.questions.length, successes };
    };
    const random = await mean(new RandomPolicy());
    const explorer = await mean(new ExplorerPolicy());
    const oracle = await mean(new OraclePolicy());
    console.log(`demo mean return: random ${random.mean.toFixed(3)} (${random.successes} solved), explorer ${explorer.mean.toFixed(3)}, oracle ${oracle.mean.toFixed(3)}`);
    expect(explorer.successes).toBe(0);
    expect(random.mean).toBeLessThan(explorer.mean);
    expect(explorer.mean).toBeLessThan(oracle.mean);
    expect(oracle.successes).toBe(demo.questions.length);
    expect(explorer.mean).toBeLessThanOrEqual(maxReturnWithoutCorrectAnswer(DEFAULT_REWARD_WEIGHTS, 10));
  }, 120_000);

  it('random episodes keep every component in its bounds, and one seed gives one trajectory', async () => {
    const env = new SqlEnv(demo, executor);
    for (let seed = auditSeed; seed < auditSeed + 100; seed++) {
      const a = await runEpisode(env, new RandomPolicy(0.05), { split: 'all', seed });
      const b = await runEpisode(env, new RandomPolicy(0.05), { split: 'all', seed });
      expect(a).toEqual(b);
      for (const step of a.transcript) {
        if (step.components.correctness === 1) continue;
        expect(step.components.progress).toBeGreaterThanOrEqual(0);
        expect(step.components.operational).toBeGreaterThanOrEqual(OPERATIONAL.error);
        expect(step.components.operational).toBeLessThanOrEqual(OPERATIONAL.newInformation);
      }
      if (a.success) expect(a.episodeReturn).toBeCloseTo(correctEpisodeReturn(DEFAULT_REWARD_WEIGHTS, a.steps));
      else expect(a.episodeReturn).toBeLessThanOrEqual(maxReturnWithoutCorrectAnswer(DEFAULT_REWARD_WEIGHTS, 10) + 1e-12);
    }
  }, 120_000);
});

describe('on Spider dev', () => {
  let spider: Dataset;
  let executor: LocalSqlExecutor;
  beforeAll(async () => {
    executor = new LocalSqlExecutor(await initSqlJs());
    spider = (await importSpider(spiderDir(), executor)).dataset;
  }, 180_000);
  afterAll(() => executor.close());

  it('the adversarial search over 200+ questions finds no trajectory that breaks properties 1–4', async () => {
    const env = new SqlEnv(spider, executor);
    // Every fourth question in dataset order: all databases, all difficulties, > 200 questions.
    const questions = spider.questions.filter((_, i) => i % 4 === 0);
    expect(questions.length).toBeGreaterThanOrEqual(200);
    const tables = (q: Question) => spider.databases.find((d) => d.id === q.dbId)?.tables ?? [];
    const report = await auditRewards(env, questions, tables, { seed: auditSeed, randomTrajectories: 8, greedyDepth: 2 });
    console.log(formatAuditReport(report));
    expect(report.violations).toEqual([]);
  }, 600_000);
});
