/**
 * Hostile values end to end: a corpus of actions that broke v1 (huge cells, huge blobs, 2,000 columns, fences and
 * digit runs that made regexes backtrack, a 1 MB action, runaway SQL, CTEs named like write keywords) and seeded
 * mutations of them, played through the real environment on the killable worker executor. For every one: `step`
 * does not throw, the observation and the whole step result stay within their budgets, the next step works, and the
 * database is unchanged — checked on the connection the worker really holds (the episode's own key): SQLite's
 * `total_changes()` is still 0 there and its schema and every row equal those of a fresh open of the fixture bytes.
 * The worst step time is printed (not asserted: the machine is shared). The seed comes from SQLENV_TEST_SEED
 * (tests/fixtures/seed.ts): drawn fresh each run and printed, replayed when set.
 */
import { createHash } from 'node:crypto';
import initSqlJs from 'sql.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRng, pick, randomInt, type Rng } from '../../src/data/rng.ts';
import { SqlEnv } from '../../src/env/env.ts';
import { transcriptStep } from '../../src/eval/transcript.ts';
import { VALUE_LIMITS } from '../../src/sql/limits.ts';
import { createNodeSqlExecutor } from '../../src/sql/node-worker.ts';
import type { WorkerSqlExecutor } from '../../src/sql/worker-executor.ts';
import type { SqlValue } from '../../src/sql/types.ts';
import { testSeed } from '../fixtures/seed.ts';
import { buildTinyDataset } from '../fixtures/tiny-dataset.ts';
import type { Dataset } from '../../src/data/types.ts';

const seed = testSeed('tests/env/hostile-fuzz.test.ts');

const wideSelect = `SELECT ${Array.from({ length: 2000 }, (_, i) => `'a' AS c${i}`).join(', ')}`;

const HOSTILE_ACTIONS: readonly string[] = [
  "QUERY SELECT printf('%.*c', 90000000, char(1))",
  "QUERY SELECT printf('%.*c', 140000000, 'x')",
  'QUERY SELECT randomblob(50000000)',
  'QUERY SELECT zeroblob(500000000)',
  `QUERY ${wideSelect}`,
  `QUERY SELECT ${Array.from({ length: 2000 }, (_, i) => `name AS n${i}`).join(', ')} FROM singer`,
  `ANSWER \`\`\`${' '.repeat(100_000)}x`,
  `ANSWER ${'1'.repeat(200_000)}`,
  `ANSWER ${'|a'.repeat(100_000)}`,
  `ANSWER ${'["'.repeat(50_000)}`,
  `QUERY SELECT '${'x'.repeat(1_000_000)}'`,
  `DESCRIBE ${'t'.repeat(1_000_000)}`,
  'QUERY WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r',
  'QUERY SELECT count(*) FROM singer a, singer b, singer c, singer d, singer e, singer f, singer g, singer h, singer i, singer j, singer k',
  'QUERY WITH replace AS (SELECT 1) SELECT * FROM replace',
  "QUERY SELECT group_concat(printf('%.*c', 1000000, 'y')) FROM singer a, singer b, singer c",
  'QUERY DELETE FROM singer',
  'QUERY UPDATE singer SET age = age + 1',
  "QUERY REPLACE INTO concert VALUES (1, 'Spring', 2014)",
  "QUERY SELECT 1; DROP TABLE singer",
  "QUERY ATTACH DATABASE ':memory:' AS x",
  '{"action": "QUERY", "sql": "SELECT 1"}',
  '<tool_call>{"name": "query", "arguments": {"sql": "SELECT 1"}}</tool_call>',
  '```\nQUERY SELECT 1\n```',
  '\u0000\u0001\u0002',
  '',
];

function mutate(rng: Rng, text: string): string {
  const at = randomInt(rng, text.length + 1);
  switch (randomInt(rng, 5)) {
    case 0:
      return text.slice(0, at) + String.fromCharCode(randomInt(rng, 0x3000)) + text.slice(at);
    case 1:
      return text.slice(0, at) + text.slice(at + 1 + randomInt(rng, 50));
    case 2:
      return text.slice(0, at) + text.slice(at, at + 20).repeat(1 + randomInt(rng, 5_000)) + text.slice(at + 20);
    case 3:
      return `${pick(rng, ['QUERY ', 'ANSWER ', 'DESCRIBE ', 'SAMPLE ', ''])}${text.slice(at, at + 2_000)}`;
    default:
      return text.toUpperCase();
  }
}

let executor: WorkerSqlExecutor;
let dataset: Dataset;
let dbHash: string;
const hash = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
/** The key the environment loads the fixture under (`<dataset>/<db>`), so the checks read the episode's connection. */
const EPISODE_DB_KEY = 'tiny/concerts';
/** What the database must hold, read by a fresh sql.js open of the fixture bytes: each probe and its rows. */
let expectedContent: Array<[string, SqlValue[][]]>;

function probesFor(tables: readonly string[]): string[] {
  return ['SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY rowid', ...tables.map((t) => `SELECT rowid, * FROM "${t}" ORDER BY rowid`)];
}

/** Fails unless the connection the worker holds for the episode was never written and holds the fixture's content. */
async function expectDatabaseUnchanged(after: string): Promise<void> {
  expect((await executor.query(EPISODE_DB_KEY, 'SELECT total_changes()')).rows, `total_changes() after ${after}`).toEqual([[0]]);
  for (const [probe, rows] of expectedContent) expect((await executor.query(EPISODE_DB_KEY, probe, { maxRows: 1_000 })).rows, `${probe} after ${after}`).toEqual(rows);
}

beforeAll(async () => {
  executor = createNodeSqlExecutor({ limits: { timeoutMs: 2_000 } });
  dataset = await buildTinyDataset();
  const bytes = await dataset.loadDatabase('concerts');
  dbHash = hash(bytes);
  const SQL = await initSqlJs();
  const fresh = new SQL.Database(bytes);
  const tables = (fresh.exec("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY rowid")[0]?.values ?? []).map((r) => String(r[0]));
  expectedContent = probesFor(tables).map((probe) => [probe, (fresh.exec(probe)[0]?.values ?? []) as SqlValue[][]]);
  fresh.close();
  expect(tables).toEqual(['singer', 'concert', 'performs']);
});
afterAll(() => executor.close());

async function stepsLeft(env: SqlEnv): Promise<number> {
  try {
    return env.state().done ? 0 : env.state().stepsLeft;
  } catch {
    return 0;
  }
}

/** Bounds any step's outputs must keep: the text a model reads and what a transcript stores. */
const MAX_OBSERVATION_TEXT = VALUE_LIMITS.actionEchoChars + VALUE_LIMITS.observationChars + 1_000;
const MAX_STEP_JSON = 4 * VALUE_LIMITS.viewChars + 16_384;

describe('hostile actions', () => {
  it('never throw, stay within budget, leave the next step working and the database unchanged', async () => {
    const env = new SqlEnv(dataset, executor);
    const rng = createRng(seed);
    const inputs = [...HOSTILE_ACTIONS, ...Array.from({ length: 150 }, () => mutate(rng, pick(rng, HOSTILE_ACTIONS)))];
    let worst = { ms: 0, action: '' };
    for (const action of inputs) {
      // Each hostile action and the check after it take two steps of a fresh enough episode.
      if ((await stepsLeft(env)) < 2) await env.reset({ questionId: 'tiny-1', seed: 0 });
      const started = performance.now();
      const r = await env.step(action);
      const ms = performance.now() - started;
      if (ms > worst.ms) worst = { ms, action: action.slice(0, 60) };
      expect(r.observation.text.length, action.slice(0, 60)).toBeLessThanOrEqual(MAX_OBSERVATION_TEXT);
      // The parsed action in `info` is the caller's own input, kept exact; everything the environment adds is bounded,
      // and so is the transcript step that evaluation and the page store.
      const { action: _own, ...added } = r.info;
      expect(JSON.stringify({ observation: r.observation, info: added }).length, action.slice(0, 60)).toBeLessThanOrEqual(MAX_STEP_JSON);
      expect(JSON.stringify(transcriptStep(r)).length, action.slice(0, 60)).toBeLessThanOrEqual(MAX_STEP_JSON);
      if (r.done) await env.reset({ questionId: 'tiny-1', seed: 0 });
      const next = await env.step('QUERY SELECT count(*) FROM singer');
      expect(next.observation.result?.rows, `after ${action.slice(0, 60)}`).toEqual([[5]]);
      await expectDatabaseUnchanged(action.slice(0, 60));
    }
    console.log(`hostile fuzz: ${inputs.length} actions, worst step ${worst.ms.toFixed(0)} ms (${JSON.stringify(worst.action)})`);
    // The caller's bytes too: the executor sends a copy and never writes (or detaches) the array it was given.
    expect(hash(await dataset.loadDatabase('concerts'))).toBe(dbHash);
  }, 600_000);
});
