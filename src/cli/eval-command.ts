/** `sqlenv eval`: evaluates a baseline policy on a dataset split and prints a summary (or JSON with --json). */
import { parseArgs } from 'node:util';
import { writeFile } from 'node:fs/promises';
import { DATASET_NAMES, loadNodeDataset } from '../data/load-node.ts';
import { SPLITS, type SplitSelector } from '../data/types.ts';
import { SqlEnv } from '../env/env.ts';
import { evaluate, type EvalReport } from '../eval/evaluate.ts';
import { toJsonl } from '../eval/transcript.ts';
import { OraclePolicy } from '../policies/oracle.ts';
import type { Policy } from '../policies/policy.ts';
import { RandomPolicy } from '../policies/random.ts';
import { createNodeSqlExecutor } from '../sql/node-worker.ts';
import { choice, integer, UsageError } from './args.ts';
import { createProgress } from './progress.ts';

export const EVAL_USAGE = 'sqlenv eval --policy random|oracle --dataset demo|spider --split train|eval|heldout|all [--episodes N|all] [--seed S] [--json] [--transcripts FILE.jsonl]';

const POLICIES = { random: () => new RandomPolicy(), oracle: () => new OraclePolicy() } satisfies Record<string, () => Policy>;

function formatReport(report: EvalReport): string {
  const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;
  const row = (name: string, g: { episodes: number; success_rate: number; mean_return: number; mean_steps: number }): string =>
    `${name.padEnd(30)} ${String(g.episodes).padStart(6)} ${pct(g.success_rate).padStart(8)} ${g.mean_return.toFixed(3).padStart(8)} ${g.mean_steps.toFixed(2).padStart(6)}`;
  const lines = [
    `policy ${report.policy} on ${report.dataset}/${report.split} (seed ${report.seed})`,
    `${''.padEnd(30)} ${'eps'.padStart(6)} ${'success'.padStart(8)} ${'return'.padStart(8)} ${'steps'.padStart(6)}`,
    row('all', report),
    ...Object.entries(report.by_difficulty).map(([k, g]) => row(`  ${k}`, g)),
    ...Object.entries(report.by_database).map(([k, g]) => row(`  ${k}`, g)),
    `mean components: correctness ${report.mean_components.correctness.toFixed(3)}, progress ${report.mean_components.progress.toFixed(3)}, operational ${report.mean_components.operational.toFixed(3)}`,
  ];
  return lines.join('\n');
}

export async function evalCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      policy: { type: 'string' },
      dataset: { type: 'string' },
      split: { type: 'string' },
      episodes: { type: 'string' },
      seed: { type: 'string' },
      json: { type: 'boolean', default: false },
      transcripts: { type: 'string' },
    },
    strict: true,
  });
  const policyName = choice('policy', values.policy, ['random', 'oracle'] as const);
  const datasetName = choice('dataset', values.dataset, DATASET_NAMES, 'demo');
  const split = choice<SplitSelector>('split', values.split, [...SPLITS, 'all'], 'eval');
  const episodes = values.episodes === undefined || values.episodes === 'all' ? 'all' : integer('episodes', values.episodes, 0, 1);
  const seed = integer('seed', values.seed, 0);
  if (values.transcripts === '') throw new UsageError('--transcripts needs a file name.');

  const executor = createNodeSqlExecutor();
  try {
    const importProgress = createProgress('importing');
    const dataset = await loadNodeDataset(datasetName, executor, (d, t) => importProgress.update(d, t));
    importProgress.finish();
    const env = new SqlEnv(dataset, executor);
    const progress = createProgress(`${policyName}`);
    const report = await evaluate(env, POLICIES[policyName](), { episodes, seed, split, onProgress: (d, t) => progress.update(d, t) });
    progress.finish();
    if (values.transcripts) await writeFile(values.transcripts, toJsonl(report.records));
    if (values.json) {
      const { records, ...summary } = report;
      process.stdout.write(`${JSON.stringify({ ...summary, episodes: records.length })}\n`);
    } else {
      process.stdout.write(`${formatReport(report)}\n`);
    }
    return 0;
  } finally {
    await executor.close();
  }
}
