/**
 * `sqlenv compare A.jsonl B.jsonl`: the figures Compare shows for two run files, for scripts — per question pairs,
 * the difference in success with McNemar's exact p and in mean return with a seeded bootstrap interval, overall and
 * per difficulty (src/eval/paired-stats.ts), and the warnings (other questions, seeds, environment versions). Files
 * are read by the one run-file reader (src/eval/run-file.ts), their size checked before they are read.
 */
import { parseArgs } from 'node:util';
import { readFile, stat } from 'node:fs/promises';
import { compareWithStats, returnWords, successWords, summaryWords, type PairedComparison, type PairedStats } from '../eval/paired-stats.ts';
import { checkRunFileSize, parseRunFile, RunFileError, type ReadRun } from '../eval/run-file.ts';
import { CliError, integer, UsageError } from './args.ts';

export const COMPARE_USAGE = 'sqlenv compare A.jsonl B.jsonl [--json] [--seed S] [--resamples N]   (run files from sqlenv eval --transcripts, the page or Python)';

async function readRun(path: string, side: 'A' | 'B'): Promise<ReadRun> {
  try {
    checkRunFileSize((await stat(path)).size);
    return await parseRunFile(await readFile(path, 'utf8'));
  } catch (e) {
    if (e instanceof RunFileError) throw new CliError(`run ${side} (${path}): ${e.message}`);
    if (e instanceof Error && 'code' in e && e.code === 'ENOENT') throw new CliError(`run ${side}: no file ${path}.`);
    throw e;
  }
}

function describeRun(side: 'A' | 'B', path: string, run: ReadRun): string {
  const h = run.file.header;
  const model = h.model ? ` model ${h.model}${h.adapter ? ` + adapter ${h.adapter}` : ''}` : '';
  return `${side}: ${h.policy}${model} on ${h.dataset}/${h.split}, seed ${h.seed}, ${h.episodes} episodes, environment v${h.envVersion}, written by ${h.writer} (${path})`;
}

function row(label: string, s: PairedStats): string {
  return `${label.padEnd(10)} ${String(s.questions).padStart(9)} ${String(s.onlyA).padStart(7)} ${String(s.onlyB).padStart(7)}   ${successWords(s).padEnd(22)} ${returnWords(s)}`;
}

function formatComparison(result: PairedComparison): string {
  return [
    `${''.padEnd(10)} ${'questions'.padStart(9)} ${'only A'.padStart(7)} ${'only B'.padStart(7)}   ${'success B − A'.padEnd(22)} mean return B − A (95% bootstrap interval)`,
    row('all', result.overall),
    ...Object.entries(result.byDifficulty).map(([d, s]) => row(`  ${d}`, s)),
    summaryWords(result.overall),
    `(McNemar's exact test on questions only one run solved; bootstrap over questions, ${result.resamples} resamples, seed ${result.seed})`,
  ].join('\n');
}

export async function compareCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { json: { type: 'boolean', default: false }, seed: { type: 'string' }, resamples: { type: 'string' } },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length !== 2) throw new UsageError(`compare takes two run files, A and B; got ${positionals.length}.`);
  const seed = integer('seed', values.seed, 0);
  const resamples = integer('resamples', values.resamples, 2000, 100);
  if (resamples > 100_000) throw new UsageError('--resamples must be at most 100000.');
  const [pathA, pathB] = positionals;
  const a = await readRun(pathA, 'A');
  const b = await readRun(pathB, 'B');
  const result = compareWithStats({ records: a.file.records, envVersion: a.file.header.envVersion }, { records: b.file.records, envVersion: b.file.header.envVersion }, { seed, resamples });
  const warnings = [...a.warnings.map((w) => `A: ${w}`), ...b.warnings.map((w) => `B: ${w}`), ...result.warnings];
  if (a.file.header.dataset !== b.file.header.dataset) warnings.push(`The runs are on different datasets (${a.file.header.dataset} and ${b.file.header.dataset}): they share no question.`);
  if (values.json) {
    const { format: _fa, ...headerA } = a.file.header;
    const { format: _fb, ...headerB } = b.file.header;
    process.stdout.write(`${JSON.stringify({ a: headerA, b: headerB, overall: result.overall, by_difficulty: result.byDifficulty, warnings, seed, resamples, summary: summaryWords(result.overall) })}\n`);
  } else {
    const lines = [describeRun('A', pathA, a), describeRun('B', pathB, b), ...warnings.map((w) => `warning: ${w}`), formatComparison(result)];
    process.stdout.write(`${lines.join('\n')}\n`);
  }
  return 0;
}
