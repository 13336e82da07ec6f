/**
 * `sqlenv export` as a user runs it: a real child process writing a JSONL file; exit 0 with a summary on stderr, 2 on
 * bad flags (leaving an existing file alone), 1 on a bad dataset or an unwritable folder. The bad flags but the last
 * run main() in this process (sqlenvInProcess: a child costs ~1.3 s to start tsx); the last, `--bogus`, stays a child
 * process, so exit code 2 reaching the shell is checked here too.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { sqlenvInProcess } from './model-fixture.ts';

const BIN = fileURLToPath(new URL('../../bin/sqlenv.mjs', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'sqlenv-export-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Run {
  code: number | null;
  stderr: string;
}

function sqlenv(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env } });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

const rowsOf = (path: string): Array<Record<string, unknown>> =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('sqlenv export', () => {
  it('writes one sft row per question of the split, replacing the old file, and summarises on stderr', async () => {
    const out = join(dir, 'sft.jsonl');
    writeFileSync(out, 'old\n');
    const run = await sqlenv(['export', '--format', 'sft', '--dataset', 'demo', '--split', 'eval', '--out', out]);
    expect(run.code).toBe(0);
    const rows = rowsOf(out);
    expect(rows).toHaveLength(34); // the demo's eval split
    expect(new Set(rows.map((r) => r.question_id)).size).toBe(34);
    expect(Object.keys(rows[0])).toEqual(expect.arrayContaining(['messages', 'tools', 'question_id', 'db_id']));
    expect(run.stderr).toContain(`wrote 34 sft rows (demo/eval, 0-shot, thinking off, ≤ 2048 tokens) to ${out}`);
    expect(run.stderr).toContain('skipped 0');
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('writes prompts rows with the shot turns before the question', async () => {
    const out = join(dir, 'prompts.jsonl');
    const run = await sqlenv(['export', '--format', 'prompts', '--split', 'train', '--shots', '1', '--thinking', 'on', '--max-tokens', '1200', '--out', out]);
    expect(run.code).toBe(0);
    const rows = rowsOf(out);
    expect(rows).toHaveLength(53); // the demo's train split
    for (const row of rows) expect((row.prompt as unknown[]).length).toBeGreaterThan(2); // system, the shot's turns, user
  });

  it('names each question it skipped and why', async () => {
    const out = join(dir, 'short.jsonl');
    const run = await sqlenv(['export', '--format', 'sft', '--split', 'train', '--max-tokens', '700', '--out', out]);
    expect(run.code).toBe(0);
    const skipped = Number(/skipped (\d+): \d+ episode-too-long\n/.exec(run.stderr)?.[1]);
    expect(skipped).toBeGreaterThan(0);
    expect(rowsOf(out).length + skipped).toBe(53);
    expect(run.stderr.match(/ {2}skipped demo-\S+: episode-too-long \(the demonstration has \d+ tokens/g)).toHaveLength(skipped);
  });

  it.each([
    [['export', '--dataset', 'demo', '--out', 'x.jsonl'], /--format is required \(prompts\|sft\)/],
    [['export', '--format', 'csv', '--out', 'x.jsonl'], /--format must be one of prompts\|sft/],
    [['export', '--format', 'sft'], /--out FILE.jsonl is required/],
    [['export', '--format', 'sft', '--split', 'test', '--out', 'x.jsonl'], /--split must be one of/],
    [['export', '--format', 'sft', '--shots', '2', '--out', 'x.jsonl'], /--shots must be one of 0\|1\|3/],
    [['export', '--format', 'sft', '--thinking', 'yes', '--out', 'x.jsonl'], /--thinking must be one of on\|off/],
    [['export', '--format', 'sft', '--max-tokens', '10', '--out', 'x.jsonl'], /--max-tokens must be an integer ≥ 64/],
    [['export', '--format', 'sft', '--bogus', '--out', 'x.jsonl'], /Unknown option '--bogus'/],
  ])('refuses bad flags %j with exit code 2', async (args, message) => {
    const out = join(dir, 'kept.jsonl');
    writeFileSync(out, 'old\n');
    const withOut = args.map((a) => (a === 'x.jsonl' ? out : a));
    const run = await (args.includes('--bogus') ? sqlenv(withOut) : sqlenvInProcess(withOut));
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(readFileSync(out, 'utf8')).toBe('old\n');
  });

  it('exits 1 on a bad dataset, an empty split or an unwritable folder', async () => {
    const out = join(dir, 'none.jsonl');
    const spider = await sqlenv(['export', '--format', 'prompts', '--dataset', 'spider', '--out', out], { SPIDER_DIR: join(dir, 'no-spider-here') });
    expect(spider.code).toBe(1);
    const empty = await sqlenv(['export', '--format', 'prompts', '--split', 'heldout', '--out', out]);
    expect(empty.code).toBe(1);
    expect(empty.stderr).toMatch(/no questions in split 'heldout'/);
    const nowhere = await sqlenv(['export', '--format', 'prompts', '--out', join(dir, 'missing', 'x.jsonl')]);
    expect(nowhere.code).toBe(1);
    expect(nowhere.stderr).toMatch(/is not a writable folder/);
    expect(readdirSync(dir)).not.toContain('none.jsonl');
  });
});
