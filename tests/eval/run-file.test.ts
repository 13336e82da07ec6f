/**
 * The run file (src/eval/run-file.ts): a real Oracle and Random evaluation exported as the page exports it reads
 * back equal (records deep-equal, BLOB cells as bytes, summary figures recomputed equal to the report's); every
 * hostile input is refused with a message naming what is wrong; versions and datasets are refused or warned about.
 */
import initSqlJs from 'sql.js';
import { describe, expect, it } from 'vitest';
import { ENV_VERSION, SqlEnv } from '../../src/env/env.ts';
import { evaluate, type EvalReport } from '../../src/eval/evaluate.ts';
import { exportFile } from '../../src/eval/export.ts';
import { checkRunFileSize, parseRunFile, RUN_FILE_LIMITS, RunFileError, savedRunOf, toRunFile, type RunHeader } from '../../src/eval/run-file.ts';
import { summaryOf } from '../../src/eval/run-store.ts';
import type { EpisodeRecord } from '../../src/eval/transcript.ts';
import { OraclePolicy } from '../../src/policies/oracle.ts';
import { RandomPolicy } from '../../src/policies/random.ts';
import { LocalSqlExecutor } from '../../src/sql/executor.ts';
import { buildTinyDataset } from '../fixtures/tiny-dataset.ts';

async function report(policy: 'oracle' | 'random', episodes: number): Promise<EvalReport> {
  const executor = new LocalSqlExecutor(await initSqlJs());
  try {
    const env = new SqlEnv(await buildTinyDataset(), executor);
    return await evaluate(env, policy === 'oracle' ? new OraclePolicy() : new RandomPolicy(), { episodes, seed: 5, split: 'all' });
  } finally {
    await executor.close();
  }
}

const HEADER: Omit<RunHeader, 'format' | 'formatVersion' | 'episodes'> = {
  envVersion: ENV_VERSION,
  id: 'run-x',
  dataset: 'demo',
  split: 'eval',
  policy: 'oracle',
  model: null,
  adapter: null,
  seed: 0,
  settings: { budget: 10 },
  createdAt: 1_700_000_000_000,
  durationMs: 5,
  writer: 'test',
};

function episode(overrides: Partial<EpisodeRecord> = {}): EpisodeRecord {
  return {
    policy: 'oracle',
    dataset: 'demo',
    questionId: 'q-1',
    dbId: 'library',
    question: 'How many books?',
    difficulty: 'easy',
    split: 'eval',
    seed: 0,
    success: true,
    episodeReturn: 1,
    components: { correctness: 1, progress: 0, operational: 0 },
    steps: 1,
    terminated: true,
    truncated: false,
    transcript: [
      {
        action: { type: 'QUERY', sql: 'SELECT x FROM t' },
        actionText: 'QUERY SELECT x FROM t',
        observation: '> QUERY SELECT x FROM t\nx\n1',
        reward: 1,
        components: { correctness: 1, progress: 0, operational: 0 },
        outcome: 'ok',
        episodeReturn: 1,
        result: { columns: ['x', 'b'], rows: [[1, new Uint8Array([0, 255, 16])]], totalRows: 1 },
      },
    ],
    ...overrides,
  };
}

/** The error message of reading `text`, or 'accepted'. */
async function refusal(text: string, options = {}): Promise<string> {
  try {
    await parseRunFile(text, options);
    return 'accepted';
  } catch (e) {
    expect(e).toBeInstanceOf(RunFileError);
    return (e as Error).message;
  }
}

const goodLine = () => JSON.stringify(JSON.parse(toRunFile(HEADER, [episode()]).split('\n')[1]) as unknown);
const withHeader = (patch: Record<string, unknown>, lines = [goodLine()]) => [JSON.stringify({ ...JSON.parse(toRunFile(HEADER, [episode()]).split('\n')[0]), ...patch }), ...lines].join('\n');

describe('run file round trip', () => {
  it('reads back what the page exports: records equal, figures equal, ids and settings kept', async () => {
    for (const policy of ['oracle', 'random'] as const) {
      const r = await report(policy, 9);
      const summary = summaryOf(r, `run-${policy}`, 1_700_000_000_000, 1234);
      const file = exportFile('jsonl', summary, r.records);
      const read = await parseRunFile(file.text, { datasets: [r.dataset] });
      expect(read.warnings).toEqual([]);
      expect(read.file.records).toEqual(r.records);
      const saved = savedRunOf(read.file);
      expect(saved.summary).toEqual({ ...summary, model: null, adapter: null, settings: {} });
      expect(saved.summary.success_rate).toBe(r.success_rate);
    }
  });

  it('keeps BLOB cells as bytes and reads CRLF line ends', async () => {
    const text = toRunFile(HEADER, [episode(), episode({ questionId: 'q-2', seed: 1 })]).replaceAll('\n', '\r\n');
    const { file } = await parseRunFile(text);
    expect(file.records[1]).toEqual(episode({ questionId: 'q-2', seed: 1 }));
    expect(file.records[0].transcript[0].result?.rows[0][1]).toEqual(new Uint8Array([0, 255, 16]));
    expect(file.header).toMatchObject({ id: 'run-x', settings: { budget: 10 }, episodes: 2, writer: 'test' });
  });
});

describe('run file refusals', () => {
  it.each([
    ['an empty file', '', 'The file is empty'],
    ['not JSON', 'hello\n', 'line 1 is not JSON'],
    ['a NaN literal', withHeader({}, [goodLine().replace('"episodeReturn":1,', '"episodeReturn":NaN,')]), 'line 2 is not JSON'],
    ['an infinite number', withHeader({}, [goodLine().replace('"episodeReturn":1,', '"episodeReturn":1e999,')]), 'line 2.episodeReturn must be a finite number, got Infinity'],
    ['a __proto__ key', withHeader({}, [goodLine().replace('{', '{"__proto__":{"polluted":1},')]), "line 2 has a key named '__proto__'"],
    ['a __proto__ key written with escapes', withHeader({}, [goodLine().replace('{', '{"\\u005f_proto__":{"polluted":1},')]), "line 2 has a key named '__proto__'"],
    ['a constructor key', withHeader({}, [goodLine().replace('"components":{', '"components":{"constructor":1,')]), "key named 'constructor'"],
    ['a wrong type', withHeader({}, [goodLine().replace('"success":true', '"success":"yes"')]), 'line 2.success must be true or false, got a string'],
    ['a wrong outcome', withHeader({}, [goodLine().replace('"outcome":"ok"', '"outcome":"great"')]), 'line 2.transcript[0].outcome must be one of'],
    ['a bad BLOB', withHeader({}, [goodLine().replace('00ff10', 'zz')]), '$blob must be hexadecimal'],
    ['deep nesting', withHeader({}, [goodLine().replace('"question":"How many books?"', `"question":${'['.repeat(100_000)}${']'.repeat(100_000)}`)]), 'nested more than 16 levels'],
    ['a string where a known deep field is', withHeader({}, [goodLine().replace('"transcript":[', '"transcript":[[[[1]]],')]), 'line 2.transcript[0] must be an object, got an array'],
    ['too many episodes claimed', withHeader({ episodes: RUN_FILE_LIMITS.episodes + 1 }), 'header.episodes must be an integer in [0, 20000]'],
    ['fewer lines than the header says', withHeader({ episodes: 2 }), 'The header says 2 episodes; the file has 1'],
    ['an episode of another dataset', withHeader({}, [goodLine().replace('"dataset":"demo"', '"dataset":"spider"')]), "the episode is on dataset 'spider', the header says 'demo'"],
    ['an episode of another split', withHeader({}, [goodLine().replace('"split":"eval"', '"split":"train"')]), "from split 'train'"],
    ['a newer environment', withHeader({ envVersion: ENV_VERSION + 1 }), `environment v${ENV_VERSION + 1}; this SQLEnv is v${ENV_VERSION}`],
    ['a newer file format', withHeader({ formatVersion: 2 }), 'format version 2; this reader knows version 1'],
    ['an episode list without header', `${goodLine()}\n`, 'without a run header'],
    ['another JSON file', '{"name":"x"}\n', 'not a SQLEnv run file'],
    ['steps that disagree with the transcript', withHeader({}, [goodLine().replace('"steps":1', '"steps":2')]), 'says 2 steps but its transcript has 1'],
    ['a huge question', withHeader({}, [goodLine().replace('How many books?', 'x'.repeat(RUN_FILE_LIMITS.textChars + 1))]), `line 2.question has ${RUN_FILE_LIMITS.textChars + 1} characters`],
  ])('%s', async (_what, text, message) => {
    expect(await refusal(text)).toContain(message);
  });

  it('refuses an unknown dataset and warns about an older environment version', async () => {
    expect(await refusal(toRunFile(HEADER, [episode()]), { datasets: ['spider'] })).toContain("dataset 'demo', which is not loaded here (spider)");
    const older = await parseRunFile(toRunFile({ ...HEADER, envVersion: ENV_VERSION - 1 }, [episode()]));
    expect(older.warnings[0]).toContain(`played under environment v${ENV_VERSION - 1}, not v${ENV_VERSION}`);
    expect(older.file.header.envVersion).toBe(ENV_VERSION - 1);
  });

  it('checks a file size before reading it', () => {
    expect(() => checkRunFileSize(RUN_FILE_LIMITS.fileBytes + 1)).toThrow(/may be at most 128 MiB/);
    expect(() => checkRunFileSize(RUN_FILE_LIMITS.fileBytes)).not.toThrow();
  });

  it('drops unknown fields instead of carrying them', async () => {
    const { file } = await parseRunFile(withHeader({ extra: 'x'.repeat(1000) }, [goodLine().replace('{', '{"extra":{"a":[1,2,3]},')]));
    expect(Object.keys(file.records[0])).not.toContain('extra');
    expect(Object.keys(file.header)).not.toContain('extra');
  });
});
