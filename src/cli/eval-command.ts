/**
 * `sqlenv eval`: evaluates a policy on a dataset split and prints a summary (or JSON with --json). Random and Oracle
 * play one episode after another; `--policy qwen` plays a model folder on the Node WebGPU engine (qwen-policy.ts)
 * with up to --batch episodes in play at once, their turns decoded together (batch-generate.ts), with the same
 * questions, seeds and records as one at a time (concurrent-evaluate.ts). `--transcripts FILE` writes the run file
 * (src/eval/run-file.ts, docs/run-files.md): a header naming the environment version, dataset, policy, model, adapter
 * and settings, then one episode record per line, which the page's Evaluate and Compare and `sqlenv compare` read.
 */
import { parseArgs } from 'node:util';
import { writeFile } from 'node:fs/promises';
import { DATASET_NAMES, loadNodeDataset } from '../data/load-node.ts';
import { SPLITS, type SplitSelector } from '../data/types.ts';
import { ENV_VERSION, SqlEnv } from '../env/env.ts';
import type { EnvConfig } from '../env/types.ts';
import { evaluate, type EvalReport } from '../eval/evaluate.ts';
import { DEFAULT_CONTEXT_TOKENS } from '../model/context.ts';
import { toRunFile, type RunSetting } from '../eval/run-file.ts';
import { OraclePolicy } from '../policies/oracle.ts';
import type { Policy } from '../policies/policy.ts';
import { WEIGHT_FORMATS } from '../gpu/quant.ts';
import { SHOT_COUNTS } from '../policies/llm/prompt.ts';
import { RandomPolicy } from '../policies/random.ts';
import { createNodeSqlExecutor } from '../sql/node-worker.ts';
import { LlmSettingsError, resolveLlmSettings, type ResolvedLlmSettings, type ShotCount } from '../workers/llm-settings.ts';
import { choice, decimal, integer, UsageError } from './args.ts';
import { createProgress } from './progress.ts';
import { evaluateQwen, type QwenGenerationSummary, type QwenPolicyOptions } from './qwen-policy.ts';

export const EVAL_USAGE =
  'sqlenv eval --policy random|oracle|qwen --dataset demo|spider --split train|eval|heldout|all [--episodes N|all] [--seed S] [--json] [--transcripts RUN.jsonl] [--budget STEPS]\n' +
  '      qwen: --model DIR [--adapter DIR] [--shots 0|1|3] [--quant f16|q8|q4|q4m] [--temperature T] [--top-p P] [--max-new-tokens N] [--thinking] [--batch B] [--context S]';

const BASELINES = { random: () => new RandomPolicy(), oracle: () => new OraclePolicy() } satisfies Record<string, () => Policy>;

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

/** Flags that only `--policy qwen` takes. */
const QWEN_FLAGS = ['model', 'adapter', 'shots', 'quant', 'temperature', 'top-p', 'max-new-tokens', 'thinking', 'batch', 'context'] as const;

/** The Model panel's settings from flags, checked by the page's own rules (an LlmSettingsError is a usage error). */
export function qwenSettings(values: Record<string, string | boolean | undefined>): ResolvedLlmSettings {
  const str = (k: string): string | undefined => values[k] as string | undefined;
  const shots = str('shots') === undefined ? undefined : (Number(choice('shots', str('shots'), SHOT_COUNTS.map(String))) as ShotCount);
  try {
    return resolveLlmSettings({
      thinking: values.thinking === true,
      shots,
      weights: str('quant') === undefined ? undefined : choice('quant', str('quant'), WEIGHT_FORMATS),
      temperature: str('temperature') === undefined ? undefined : decimal('temperature', str('temperature'), 0),
      topP: str('top-p') === undefined ? undefined : decimal('top-p', str('top-p'), 0),
      maxNewTokens: str('max-new-tokens') === undefined ? undefined : integer('max-new-tokens', str('max-new-tokens'), 0, 1),
    });
  } catch (e) {
    if (e instanceof LlmSettingsError) throw new UsageError(e.message);
    throw e;
  }
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
      budget: { type: 'string' },
      model: { type: 'string' },
      adapter: { type: 'string' },
      shots: { type: 'string' },
      quant: { type: 'string' },
      temperature: { type: 'string' },
      'top-p': { type: 'string' },
      'max-new-tokens': { type: 'string' },
      thinking: { type: 'boolean' },
      batch: { type: 'string' },
      context: { type: 'string' },
    },
    strict: true,
  });
  const policyName = choice('policy', values.policy, ['random', 'oracle', 'qwen'] as const);
  const datasetName = choice('dataset', values.dataset, DATASET_NAMES, 'demo');
  const split = choice<SplitSelector>('split', values.split, [...SPLITS, 'all'], 'eval');
  const episodes = values.episodes === undefined || values.episodes === 'all' ? 'all' : integer('episodes', values.episodes, 0, 1);
  const seed = integer('seed', values.seed, 0);
  if (values.transcripts === '') throw new UsageError('--transcripts needs a file name.');
  const envConfig: Partial<EnvConfig> = values.budget === undefined ? {} : { budget: integer('budget', values.budget, 0, 1) };
  let player: { kind: 'baseline'; policy: Policy } | { kind: 'qwen'; options: QwenPolicyOptions };
  if (policyName === 'qwen') {
    if (!values.model) throw new UsageError('--policy qwen needs --model DIR (a Hugging Face model folder).');
    if (values.adapter === '') throw new UsageError('--adapter needs a folder.');
    const options = { model: values.model, adapter: values.adapter ?? null, settings: qwenSettings(values), batch: integer('batch', values.batch, 4, 1), context: integer('context', values.context, DEFAULT_CONTEXT_TOKENS, 16) };
    player = { kind: 'qwen', options };
  } else {
    const given = QWEN_FLAGS.filter((k) => values[k] !== undefined);
    if (given.length > 0) throw new UsageError(`--${given[0]} applies to --policy qwen only.`);
    player = { kind: 'baseline', policy: BASELINES[policyName]() };
  }

  const executor = createNodeSqlExecutor();
  const started = performance.now();
  try {
    const importProgress = createProgress('importing');
    const dataset = await loadNodeDataset(datasetName, executor, (d, t) => importProgress.update(d, t));
    importProgress.finish();
    let report: EvalReport;
    let generation: QwenGenerationSummary | null = null;
    if (player.kind === 'qwen') {
      ({ report, generation } = await evaluateQwen(player.options, dataset, executor, envConfig, { episodes, seed, split }));
    } else {
      const progress = createProgress(player.policy.name);
      report = await evaluate(new SqlEnv(dataset, executor, envConfig), player.policy, { episodes, seed, split, onProgress: (d, t) => progress.update(d, t) });
      progress.finish();
    }
    if (values.transcripts) {
      const settings: Record<string, RunSetting> = {
        episodes,
        ...(envConfig.budget !== undefined && { budget: envConfig.budget }),
        ...(player.kind === 'qwen' && { ...player.options.settings, batch: player.options.batch, context: player.options.context }),
      };
      const header = {
        envVersion: ENV_VERSION,
        id: `cli-${Date.now().toString(36)}-${report.policy}-${report.dataset}-${String(report.split)}-s${seed}`,
        dataset: report.dataset,
        split: report.split,
        policy: report.policy,
        model: player.kind === 'qwen' ? player.options.model : null,
        adapter: player.kind === 'qwen' ? player.options.adapter : null,
        seed,
        settings,
        createdAt: Date.now(),
        durationMs: Math.round(performance.now() - started),
        writer: 'cli',
      };
      await writeFile(values.transcripts, toRunFile(header, report.records));
    }
    if (values.json) {
      const { records, ...summary } = report;
      process.stdout.write(`${JSON.stringify({ ...summary, episodes: records.length, ...(generation && { generation }) })}\n`);
    } else {
      process.stdout.write(`${formatReport(report)}\n`);
    }
    return 0;
  } finally {
    await executor.close();
  }
}
