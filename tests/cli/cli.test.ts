/**
 * The `sqlenv` command as a user runs it: a real child process, real stdin and stdout, exit codes.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { spiderDir } from '../fixtures/spider-dir.ts';

const BIN = fileURLToPath(new URL('../../bin/sqlenv.mjs', import.meta.url));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function sqlenv(args: string[], stdin = ''): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, SPIDER_DIR: spiderDir() } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

function jsonLines(text: string): Array<Record<string, unknown>> {
  return text.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('sqlenv eval', () => {
  it('prints one JSON summary with --json', async () => {
    const run = await sqlenv(['eval', '--policy', 'oracle', '--dataset', 'demo', '--split', 'eval', '--json']);
    expect(run.code).toBe(0);
    const [report] = jsonLines(run.stdout);
    expect(report).toMatchObject({ policy: 'oracle', dataset: 'demo', split: 'eval', success_rate: 1 });
    expect(report.episodes).toBeGreaterThan(0);
    expect(Object.keys(report.by_difficulty as object).length).toBeGreaterThan(0);
    expect(typeof report.mean_return).toBe('number');
    expect(typeof report.mean_steps).toBe('number');
  });

  it('evaluates Random on Spider with a seed and an episode count', async () => {
    const run = await sqlenv(['eval', '--policy', 'random', '--dataset', 'spider', '--split', 'train', '--episodes', '30', '--seed', '5', '--json']);
    expect(run.code).toBe(0);
    const [report] = jsonLines(run.stdout);
    expect(report.episodes).toBe(30);
    expect(report.success_rate).toBeLessThan(0.3);
  });

  it.each([
    [['eval', '--policy', 'smart'], /--policy must be one of random\|oracle/],
    [['eval', '--policy', 'oracle', '--split', 'test'], /--split must be one of/],
    [['eval', '--policy', 'oracle', '--episodes', '0'], /--episodes must be an integer ≥ 1/],
    [['eval', '--policy', 'oracle', '--episodes', 'many'], /--episodes must be an integer/],
    [['eval', '--policy', 'oracle', '--bogus'], /Unknown option '--bogus'/],
    [['frobnicate'], /unknown command 'frobnicate'/],
  ])('refuses bad arguments %j with exit code 2', async (args, message) => {
    const run = await sqlenv(args);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
  });
});

describe('sqlenv run', () => {
  it('plays actions from stdin and prints one JSON line per step', async () => {
    const actions = ['DESCRIBE singer', 'QUERY SELECT count(*) FROM singer', 'not an action', 'ANSWER 6', 'DESCRIBE stadium'].join('\n');
    const run = await sqlenv(['run', '--dataset', 'spider', '--question', 'dev-0000'], actions);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('Question: How many singers do we have?');
    const steps = jsonLines(run.stdout);
    expect(steps).toHaveLength(4);
    expect(steps.map((s) => s.done)).toEqual([false, false, false, true]);
    expect((steps[2].info as { outcome: string }).outcome).toBe('error');
    expect(steps[3].info).toMatchObject({ correct: true, terminated: true });
    expect(run.stderr).toContain('1 further action line(s) ignored');
  });

  it('picks a seeded question of a database with --db', async () => {
    const a = await sqlenv(['run', '--dataset', 'spider', '--db', 'pets_1', '--seed', '4'], 'SAMPLE pets\n');
    const b = await sqlenv(['run', '--dataset', 'spider', '--db', 'pets_1', '--seed', '4'], 'SAMPLE pets\n');
    expect(a.code).toBe(0);
    expect(a.stderr).toContain('Database: pets_1');
    expect(a.stderr).toBe(b.stderr);
    expect(jsonLines(a.stdout)[0].observation).toMatchObject({ dbId: 'pets_1' });
  });

  it('explains a missing database or a conflicting choice', async () => {
    expect((await sqlenv(['run', '--dataset', 'spider', '--db', 'atlantis'])).stderr).toMatch(/no database 'atlantis'/);
    const both = await sqlenv(['run', '--question', 'x', '--db', 'y']);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/exactly one of --question/);
  });

  it('stops a runaway query within the time limit and keeps the episode going', async () => {
    const actions = ['QUERY WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT max(x) FROM c', 'QUERY DELETE FROM singer', 'QUERY SELECT count(*) FROM singer'].join('\n');
    const run = await sqlenv(['run', '--dataset', 'spider', '--question', 'dev-0000'], actions);
    const steps = jsonLines(run.stdout);
    expect((steps[0].observation as { error: string }).error).toMatch(/time limit/);
    expect((steps[1].observation as { error: string }).error).toMatch(/DELETE is not allowed/);
    expect((steps[2].observation as { result: { rows: unknown } }).result.rows).toEqual([[6]]);
  });
});

describe('sqlenv exec-match', () => {
  it('answers one line per input, in order', async () => {
    const input = [
      { db_id: 'concert_singer', gold: 'SELECT count(*) FROM singer', pred: 'SELECT count(singer_id) FROM singer' },
      { db_id: 'concert_singer', gold: 'SELECT name, age FROM singer', pred: 'SELECT age, name FROM singer' },
      { db_id: 'concert_singer', gold: 'SELECT name FROM singer ORDER BY age', pred: 'SELECT name FROM singer ORDER BY age DESC' },
      { db_id: 'concert_singer', gold: 'SELECT count(*) FROM singer', pred: 'DROP TABLE singer' },
      { db_id: 'concert_singer', gold: 'SELECT count(*) FROM singer', pred: 'SELECT count(*) FROM nowhere' },
      { db_id: 'no_such_db', gold: 'SELECT 1', pred: 'SELECT 1' },
    ]
      .map((l) => JSON.stringify(l))
      .concat(['{not json', '{"db_id": "concert_singer"}'])
      .join('\n');
    const run = await sqlenv(['exec-match'], input);
    expect(run.code).toBe(0);
    const out = jsonLines(run.stdout);
    expect(out.map((o) => o.match)).toEqual([true, true, false, false, false, false, false, false]);
    expect(out.slice(0, 3).map((o) => o.error)).toEqual([null, null, null]);
    expect(out[3].error).toMatch(/pred SQL failed: DROP is not allowed/);
    expect(out[4].error).toMatch(/no such table: nowhere/);
    expect(out[5].error).toMatch(/unknown database 'no_such_db'/);
    expect(out[6].error).toMatch(/bad input line/);
    expect(out[7].error).toMatch(/needs string fields/);
  });
});
