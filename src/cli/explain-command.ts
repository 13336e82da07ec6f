/**
 * `sqlenv explain`: what a LoRA adapter changed in a model policy's episodes. Reads a run file (src/eval/run-file.ts,
 * as `sqlenv eval --transcripts` and the page's export write it), rebuilds each model turn's prompt as the policy saw
 * it and its reply's tokens (src/eval/explain.ts), scores every reply token teacher-forced under the base model and
 * under base + adapter with the trainer's own forward (src/train/score-tokens.ts on a `GpuTrainableModel`: the Node
 * WebGPU engine, f16 weights as training stores them), prints per-action sums, and with --out writes every token's
 * log-probs and delta as JSON. Progress on stderr.
 *
 * The prompt settings (shots, thinking, per-turn token limit, context, step budget) are the run's where its header
 * names them (`settings.shots`, `thinking`, `maxNewTokens`, `contextTokens`, `budget`), else the flags', else the
 * Model panel's defaults; a flag given wins over the header.
 */
import { stat, readFile, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { DATASET_NAMES, loadNodeDataset, type DatasetName } from '../data/load-node.ts';
import type { Dataset } from '../data/types.ts';
import { SqlEnv } from '../env/env.ts';
import type { EnvConfig } from '../env/types.ts';
import { ExplainError, explainTurns, explanationOf, firstObservation, formatExplanation, turnSequences, type EpisodeExplanation, type ExplainPromptSettings, type ExplainTurn } from '../eval/explain.ts';
import { checkRunFileSize, parseRunFile, RunFileError, type RunSetting } from '../eval/run-file.ts';
import type { EpisodeRecord } from '../eval/transcript.ts';
import { WEIGHT_FORMATS } from '../gpu/quant.ts';
import { buildOracleShots, selectShotQuestions, SHOT_COUNTS } from '../policies/llm/prompt.ts';
import type { SqlExecutor } from '../sql/executor.ts';
import { createNodeSqlExecutor } from '../sql/node-worker.ts';
import { AdapterFileError } from '../model/adapter-file.ts';
import { contextTokensFor, DEFAULT_CONTEXT_TOKENS } from '../model/context.ts';
import { LoraConfigError } from '../model/lora.ts';
import { GpuTrainableModel } from '../train/gpu-model.ts';
import { MicroBatchError } from '../train/microbatch.ts';
import { scoreBaseAndAdapter } from '../train/score-tokens.ts';
import { resolveLlmSettings } from '../workers/llm-settings.ts';
import { choice, CliError, integer, UsageError } from './args.ts';
import { openNodeGpu, readAdapterFolder, readModelFolder } from './node-model.ts';
import { createProgress } from './progress.ts';

export const EXPLAIN_USAGE =
  'sqlenv explain --run FILE.jsonl --model DIR --adapter DIR [--episode N] [--out FILE.json] [--shots 0|1|3] [--thinking] [--max-new-tokens N] [--context S] [--budget STEPS] [--quant f16|q8|q4|q4m] [--batch B]';

/** Version of the JSON `--out` writes. */
export const EXPLAIN_FILE_VERSION = 1;

const DEFAULT_BATCH = 4;

/** A run setting as a number / boolean, or undefined when absent or of another type. */
const numberSetting = (s: Record<string, RunSetting>, key: string): number | undefined => (typeof s[key] === 'number' ? s[key] : undefined);
const booleanSetting = (s: Record<string, RunSetting>, key: string): boolean | undefined => (typeof s[key] === 'boolean' ? s[key] : undefined);

interface Resolved {
  shots: number;
  thinking: boolean;
  maxNewTokens: number;
  context: number;
  budget: number | undefined;
}

/** The prompt settings: flags over the run's header over the defaults (see the header). */
function resolveSettings(values: Record<string, string | boolean | undefined>, run: Record<string, RunSetting>): Resolved {
  const str = (k: string): string | undefined => values[k] as string | undefined;
  const shots = str('shots') !== undefined ? Number(choice('shots', str('shots'), SHOT_COUNTS.map(String))) : numberSetting(run, 'shots');
  const thinking = values.thinking === true ? true : booleanSetting(run, 'thinking');
  const maxNewTokens = str('max-new-tokens') !== undefined ? integer('max-new-tokens', str('max-new-tokens'), 0, 1) : numberSetting(run, 'maxNewTokens');
  const resolved = resolveLlmSettings({ thinking, maxNewTokens, shots: shots as (typeof SHOT_COUNTS)[number] | undefined });
  const context = str('context') !== undefined ? integer('context', str('context'), 0, 16) : (numberSetting(run, 'contextTokens') ?? numberSetting(run, 'context') ?? DEFAULT_CONTEXT_TOKENS);
  const budget = str('budget') !== undefined ? integer('budget', str('budget'), 0, 1) : numberSetting(run, 'budget');
  if (resolved.maxNewTokens >= context) throw new UsageError(`--max-new-tokens (${resolved.maxNewTokens}) must be below the context (${context}).`);
  return { shots: resolved.shots, thinking: resolved.thinking, maxNewTokens: resolved.maxNewTokens, context, budget };
}

async function readRun(path: string): Promise<{ records: EpisodeRecord[]; dataset: DatasetName; settings: Record<string, RunSetting>; warnings: string[]; id: string }> {
  let size: number;
  try {
    size = (await stat(path)).size;
  } catch (e) {
    throw new CliError(`${path} could not be read (${(e as Error).message}).`);
  }
  checkRunFileSize(size);
  const { file, warnings } = await parseRunFile(await readFile(path, 'utf8'), { datasets: DATASET_NAMES });
  return { records: file.records, dataset: file.header.dataset as DatasetName, settings: file.header.settings, warnings, id: file.header.id };
}

async function shotsFor(count: number, dataset: Dataset, executor: SqlExecutor, envConfig: Partial<EnvConfig>) {
  return count > 0 ? buildOracleShots(new SqlEnv(dataset, executor, envConfig), selectShotQuestions(dataset, count)) : [];
}

/** `explain`, with the failures a person can act on (a refused run file, an episode with no model turn, an adapter that does not fit) reported as such. */
export async function explainCommand(argv: string[]): Promise<number> {
  try {
    return await explainRun(argv);
  } catch (e) {
    if (e instanceof RunFileError || e instanceof ExplainError || e instanceof AdapterFileError || e instanceof LoraConfigError || e instanceof MicroBatchError) throw new CliError(e.message);
    throw e;
  }
}

async function explainRun(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      run: { type: 'string' },
      transcripts: { type: 'string' },
      model: { type: 'string' },
      adapter: { type: 'string' },
      episode: { type: 'string' },
      out: { type: 'string' },
      shots: { type: 'string' },
      thinking: { type: 'boolean' },
      'max-new-tokens': { type: 'string' },
      context: { type: 'string' },
      budget: { type: 'string' },
      quant: { type: 'string' },
      batch: { type: 'string' },
    },
    strict: true,
  });
  const runPath = values.run ?? values.transcripts;
  if (!runPath) throw new UsageError('explain needs --run FILE.jsonl (a run file from `sqlenv eval --transcripts` or the page).');
  if (!values.model) throw new UsageError('explain needs --model DIR (the base model folder the run was played with).');
  if (!values.adapter) throw new UsageError('explain needs --adapter DIR (the PEFT adapter whose changes to show).');
  if (values.out === '') throw new UsageError('--out needs a file name.');
  const weights = choice('quant', values.quant, WEIGHT_FORMATS, 'f16');
  const batch = integer('batch', values.batch, DEFAULT_BATCH, 1);

  const run = await readRun(runPath);
  for (const w of run.warnings) process.stderr.write(`warning: ${w}\n`);
  const settings = resolveSettings(values, run.settings);
  const episodeIndex = values.episode === undefined ? null : integer('episode', values.episode, 0, 1) - 1;
  if (episodeIndex !== null && episodeIndex >= run.records.length) throw new UsageError(`--episode ${episodeIndex + 1}: the run has ${run.records.length} episode(s).`);
  const records = episodeIndex === null ? run.records : [run.records[episodeIndex]];
  const envConfig: Partial<EnvConfig> = settings.budget === undefined ? {} : { budget: settings.budget };

  process.stderr.write(`Reading ${values.model} and ${values.adapter}…\n`);
  const model = await readModelFolder(values.model);
  const adapter = await readAdapterFolder(values.adapter, model.config);
  const executor = createNodeSqlExecutor();
  try {
    const dataset = await loadNodeDataset(run.dataset, executor);
    const prompt: ExplainPromptSettings = {
      shots: await shotsFor(settings.shots, dataset, executor, envConfig),
      thinking: settings.thinking,
      contextTokens: contextTokensFor(model.config, settings.context),
      maxNewTokens: settings.maxNewTokens,
    };
    const perRecord: Array<{ record: EpisodeRecord; turns: ExplainTurn[] }> = [];
    for (const record of records) {
      const first = await firstObservation(new SqlEnv(dataset, executor, envConfig), record);
      perRecord.push({ record, turns: explainTurns(record, first, model.tokenizer, prompt) });
    }
    const sequences = perRecord.flatMap((p) => turnSequences(p.turns));

    const gpu = await openNodeGpu('sqlenv-explain');
    let explanations: EpisodeExplanation[];
    try {
      // Planned for the longest turn, not the policy's whole context: the least memory that scores every turn.
      const slots = Math.min(batch, sequences.length);
      const longest = Math.max(...sequences.map((q) => q.tokenIds.length));
      process.stderr.write(`WebGPU: ${gpu.adapter}; uploading ${weights} weights for ${slots} sequence(s) of ${longest} tokens…\n`);
      const trainable = await GpuTrainableModel.create(gpu.ctx, model.config, model.tensors, model.tokenizer, { lora: adapter.config, seed: 0, rolloutSlots: slots, contextTokens: longest, weights });
      try {
        trainable.loadAdapter(adapter);
        model.tensors.clear(); // uploaded: the GPU holds its own copy
        const progress = createProgress('scoring replies');
        const scores = await scoreBaseAndAdapter(trainable, sequences, { onProgress: (d, t) => progress.update(d, t) });
        progress.finish();
        let k = 0;
        explanations = perRecord.map(({ record, turns }) => explanationOf(record, turns, scores.slice(k, (k += turns.length)), model.tokenizer));
      } finally {
        trainable.destroy();
      }
    } finally {
      gpu.ctx.destroy();
    }

    process.stdout.write(`${explanations.map((e) => formatExplanation(e)).join('\n\n')}\n`);
    if (values.out) {
      const file = { format: 'sqlenv-explain', version: EXPLAIN_FILE_VERSION, run: run.id, model: values.model, adapter: values.adapter, temperature: 1, settings: { ...settings, weights }, episodes: explanations };
      await writeFile(values.out, `${JSON.stringify(file)}\n`);
      process.stderr.write(`Wrote ${values.out}\n`);
    }
    return 0;
  } finally {
    await executor.close();
  }
}
