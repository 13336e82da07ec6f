/**
 * `sqlenv logits`: the last position's top-K token ids and logits of a model folder on a prompt, from the WebGPU
 * engine in Node (Dawn; SwiftShader without a GPU), with an optional PEFT adapter on. One JSON object on stdout, as
 * `npm run model:logits` prints it through Chromium, plus the adapter folder:
 *
 *   {"model", "backend": "webgpu", "quant", "adapter": "vendor/architecture [+f16]", "lora": DIR | null, "tokens": T,
 *    "ids": [...], "logits": [...]}
 *
 * "adapter" is the GPU adapter, as scripts/model-logits.ts names it; the LoRA adapter folder is "lora". Ids are
 * ordered by logit, highest first, ties by lower id (src/model/top-logits.ts, shared with that script). A NaN or
 * infinite logit is an error naming the model (exit 1), never printed as null.
 */
import { parseArgs } from 'node:util';
import { finiteTopLogits } from '../model/top-logits.ts';
import { WEIGHT_FORMATS, type WeightFormat } from '../gpu/quant.ts';
import { choice, integer, UsageError } from './args.ts';
import { createInferenceEngine, openNodeGpu, readAdapterFolder, readModelFolder } from './node-model.ts';

export const LOGITS_USAGE = 'sqlenv logits --model DIR (--ids 1,2,3 | --text "...") [--quant f16|q8|q4|q4m] [--top K] [--adapter DIR]';

export interface LogitsArgs {
  model: string;
  text: string | null;
  ids: number[] | null;
  quant: WeightFormat;
  top: number;
  adapter: string | null;
}

export function parseLogitsArgs(argv: string[]): LogitsArgs {
  const { values } = parseArgs({
    args: argv,
    options: { model: { type: 'string' }, ids: { type: 'string' }, text: { type: 'string' }, quant: { type: 'string' }, top: { type: 'string' }, adapter: { type: 'string' } },
    strict: true,
  });
  if (!values.model) throw new UsageError('--model DIR is required.');
  if ((values.text === undefined) === (values.ids === undefined)) throw new UsageError('Give exactly one of --ids 1,2,3 and --text "...".');
  let ids: number[] | null = null;
  if (values.ids !== undefined) {
    const compact = values.ids.replace(/\s/g, '');
    if (!/^\d+(,\d+)*$/.test(compact)) throw new UsageError(`--ids must be comma-separated token ids, got '${values.ids}'.`);
    ids = compact.split(',').map(Number);
  }
  if (values.adapter === '') throw new UsageError('--adapter needs a folder.');
  return {
    model: values.model,
    text: values.text ?? null,
    ids,
    quant: choice('quant', values.quant, WEIGHT_FORMATS, 'f16'),
    top: integer('top', values.top, 20, 1),
    adapter: values.adapter ?? null,
  };
}

export async function logitsCommand(argv: string[]): Promise<number> {
  const args = parseLogitsArgs(argv);
  process.stderr.write(`Reading ${args.model}…\n`);
  const model = await readModelFolder(args.model);
  const ids = args.ids ?? model.tokenizer.encode(args.text!);
  if (ids.length === 0) throw new UsageError('The prompt has no tokens.');
  const bad = ids.find((id) => id >= model.config.vocabSize);
  if (bad !== undefined) throw new UsageError(`--ids: token ${bad} is outside the vocabulary of ${model.config.vocabSize}.`);
  if (ids.length > model.config.maxPositionEmbeddings) throw new UsageError(`The prompt has ${ids.length} tokens, more than the model's ${model.config.maxPositionEmbeddings} positions.`);
  const lora = args.adapter === null ? null : await readAdapterFolder(args.adapter, model.config);

  const gpu = await openNodeGpu('sqlenv-logits');
  try {
    process.stderr.write(`WebGPU: ${gpu.adapter}; uploading ${args.quant} weights…\n`);
    const context = Math.min(model.config.maxPositionEmbeddings, Math.max(16, Math.ceil(ids.length / 16) * 16));
    // An f32 cache: one prompt's cache is small, and these logits are meant to be compared with other implementations'.
    const engine = await createInferenceEngine(gpu.ctx, model, { batch: 1, context, maxTokens: context, weights: args.quant, adapter: lora, kvCache: 'f32' });
    try {
      const row = (await engine.step([{ slot: 0, ids }])).subarray(0, model.config.vocabSize); // (V)
      const top = finiteTopLogits(row, args.top, args.model);
      process.stdout.write(`${JSON.stringify({ model: args.model, backend: 'webgpu', quant: args.quant, adapter: gpu.adapter, lora: args.adapter, tokens: ids.length, ids: top.ids, logits: top.logits })}\n`);
      return 0;
    } finally {
      engine.destroy();
    }
  } finally {
    gpu.ctx.destroy();
  }
}
