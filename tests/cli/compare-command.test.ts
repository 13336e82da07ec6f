/**
 * CLI run files into the page's reader and Compare, and `sqlenv compare` for scripts: `sqlenv eval --transcripts`
 * writes run files for Random and Oracle on the same demo questions; the page's reader (parseRunFile) takes them,
 * Compare's outcome matrix counts them, and `sqlenv compare --json` reports the same discordant counts, with the
 * McNemar p worked out here from the binomial formula. Bad input exits with a clear message.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CliError, UsageError } from '../../src/cli/args.ts';
import { compareCommand } from '../../src/cli/compare-command.ts';
import { evalCommand } from '../../src/cli/eval-command.ts';
import { parseRunFile, savedRunOf, type ReadRun } from '../../src/eval/run-file.ts';
import { compareRuns } from '../../src/ui/compare/outcome-matrix.ts';
import { sqlenv } from './model-fixture.ts';

let dir = '';
const files = { a: '', b: '' };
const read: { a?: ReadRun; b?: ReadRun } = {};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sqlenv-compare-'));
  files.a = join(dir, 'random.jsonl');
  files.b = join(dir, 'oracle.jsonl');
  const common = ['--dataset', 'demo', '--split', 'eval', '--episodes', '8', '--seed', '4'];
  // In-process, as main runs the command (a child process per run costs seconds of start-up); its report is muted.
  const write = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  const writeErr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try {
    expect(await evalCommand(['--policy', 'random', ...common, '--transcripts', files.a])).toBe(0);
    expect(await evalCommand(['--policy', 'oracle', ...common, '--transcripts', files.b])).toBe(0);
  } finally {
    write.mockRestore();
    writeErr.mockRestore();
  }
  read.a = await parseRunFile(await readFile(files.a, 'utf8'), { datasets: ['demo'] });
  read.b = await parseRunFile(await readFile(files.b, 'utf8'), { datasets: ['demo'] });
}, 120_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('CLI run files → page reader → Compare → sqlenv compare', () => {
  it('writes run files the page reads, with the header the run had', () => {
    expect(read.a!.file.header).toMatchObject({ format: 'sqlenv-run', policy: 'random', dataset: 'demo', split: 'eval', seed: 4, episodes: 8, writer: 'cli', model: null });
    expect(read.b!.file.records.map((r) => r.questionId)).toEqual(read.a!.file.records.map((r) => r.questionId));
    expect(read.b!.file.records.every((r) => r.success)).toBe(true);
    expect(savedRunOf(read.b!.file).summary.success_rate).toBe(1);
  });

  it('gives the counts of the outcome matrix and the McNemar p of the binomial formula', async () => {
    const matrix = compareRuns(read.a!.file.records, read.b!.file.records);
    const run = await sqlenv(['compare', files.a, files.b, '--json', '--seed', '9']);
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout) as { overall: { questions: number; onlyA: number; onlyB: number; p: number }; warnings: string[]; a: { policy: string } };
    expect(out.a.policy).toBe('random');
    expect(out.overall).toMatchObject({ questions: matrix.rows.length, onlyA: matrix.counts.onlyA, onlyB: matrix.counts.onlyB });
    expect(matrix.counts.onlyB).toBeGreaterThan(0);
    // With b = 0 discordant the other way, p = 2 · (1/2)^c.
    expect(matrix.counts.onlyA).toBe(0);
    expect(out.overall.p).toBeCloseTo(Math.min(1, 2 * 0.5 ** matrix.counts.onlyB), 12);
    expect(out.warnings).toEqual([]);
    expect((JSON.parse(run.stdout) as { summary: string }).summary).toContain(`success +${matrix.counts.onlyB} of ${matrix.rows.length}, p`);
  });

  it('refuses a hostile file with the file and the problem named, and bad arguments as usage errors', async () => {
    // In-process (the command's function, as main calls it): main maps CliError to exit 1, UsageError to exit 2.
    const bad = join(dir, 'bad.jsonl');
    await writeFile(bad, '{"format":"sqlenv-run","formatVersion":1,"envVersion":3,"__proto__":{}}\n');
    await expect(compareCommand([files.a, bad])).rejects.toThrow(new CliError(`run B (${bad}): line 1 has a key named '__proto__', which a run file never holds.`));
    await expect(compareCommand([files.a, join(dir, 'missing.jsonl')])).rejects.toThrow(/run B: no file/);
    await expect(compareCommand([files.a])).rejects.toThrow(UsageError);
  });
});
