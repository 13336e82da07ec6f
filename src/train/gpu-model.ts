/**
 * `TrainableModel` on the WebGPU engine: ONE `QwenEngine` (planned with LoRA and the training buffers) serves both
 * the rollouts (batched KV-cached decode with the GPU sampler) and the updates (`QwenTrainer` forward/backward/AdamW
 * on the same live adapter buffers), so the policy that samples is the policy that learns.
 *
 * Public API (the Train view, checkpoints and PEFT save/load code against these; stable):
 *   GpuTrainableModel.create(ctx, config, tensors, tokenizer, options) → plans the engine, uploads the weights and a
 *     fresh adapter (A as PEFT's init from `options.seed`, B = 0);
 *   generate / forward / backward / optimizerStep / microBatchLimits / gpuBytes   (TrainableModel);
 *   readAdapter() / loadAdapter(adapter)               the live adapter as f32 tensors, and back (shape-checked);
 *   readOptimizerState() / loadOptimizerState(state)   AdamW m and v per adapter tensor (resume exactly with
 *     `Trainer.run({ startStep })`: the AdamW step number derives from the step);
 *   destroy()                                          the engine, the trainer and their buffers (not `ctx`).
 *
 * KV reuse across turns and between slots (src/policies/llm/prefix-scheduler.ts, the scheduler the page's generator
 * uses, driven by ./rollout-decode.ts): between two `generate` calls the engine's slots keep their caches, and a
 * request takes the slot whose cache shares the longest prefix with its prompt, so a rollout's later turn prefills
 * only its new tokens (`prefillTokens` of each generation); a GRPO group's prompt is computed once and copied.
 * Anything that changes what the caches were computed with or writes them — a training forward, an optimizer step, a
 * new adapter — forgets every cache.
 *
 * Scoring temperature (`ForwardOptions.temperature`, GRPO's rollout temperature, as TRL divides logits by it): the
 * final RMSNorm's weight γ is uploaded as γ / T for training forwards and backwards, which makes every logit z / T
 * exactly (the LM head is linear in the normed rows; the final norm feeds nothing else), so the trainer's kernels
 * need no temperature; `generate` puts γ back first (its sampler divides by T itself).
 *
 * KL reference (`setReferenceAdapter`): a frozen f32 copy of an adapter, kept on the CPU. A reference forward reads
 * the live adapter back, uploads the reference, scores, and uploads the live adapter again (the f32 values the
 * optimiser owns, bit for bit); a reference whose B are all 0 (a fresh adapter) is scored as the base model, with
 * the adapter off and no copies.
 */
import { createRng } from '../data/rng.ts';
import type { GpuContext } from '../gpu/device.ts';
import { GpuOutOfMemoryError } from '../gpu/errors.ts';
import { PROMPT_PIECE_TOKENS, QwenEngine, type TensorLike } from '../gpu/engine/qwen-engine.ts';
import { QwenTrainer, type LoraTensors } from '../gpu/engine/qwen-trainer.ts';
import { checkSamplingParams } from '../gpu/kernels/sample.ts';
import type { KvCacheFormat } from '../gpu/kv-format.ts';
import type { WeightFormat } from '../gpu/quant.ts';
import { maxChunkBytes } from '../gpu/split.ts';
import type { ModelConfig } from '../model/config.ts';
import { createLoraAdapter, LoraConfigError, loraScale, loraShapes, validateLoraConfig, type LoraAdapter, type LoraConfig, type LoraTarget } from '../model/lora.ts';
import type { Tokenizer } from '../model/tokenizer.ts';
import type { Tensor } from '../model/weights.ts';
import { SlotScheduler } from '../policies/llm/prefix-scheduler.ts';
import { tokenBudgetForMemory } from './microbatch.ts';
import { adapterIsIdentity, scoringTemperature } from './reference-model.ts';
import { decodeRollouts } from './rollout-decode.ts';
import { scoredPositions, type AdamWSettings, type CheckpointableModel, type ForwardOptions, type GenerateOptions, type GenerateRequest, type MicroBatchLimits, type OptimizerState, type SampledGeneration, type ScoredSequence } from './policy-model.ts';

export type { AdamMoments, OptimizerState } from './policy-model.ts';

export interface GpuTrainableModelOptions {
  lora: LoraConfig;
  /** Seeds the adapter's A init (B = 0), as `createLoraAdapter`. */
  seed: number;
  /** B: sequences decoded together (more requests run in waves); also the most sequences per micro-batch. */
  rolloutSlots: number;
  /** S: most tokens of one sequence (prompt + replies). */
  contextTokens: number;
  /** Storage of the base matrices; default 'f16'. */
  weights?: WeightFormat;
  /** T: tokens per micro-batch; 0 (default) = the largest that fits `gpuMemoryBytes` (microbatch.ts tokenBudgetForMemory). */
  microBatchTokens?: number;
  /**
   * Most tokens of one forward while generating (prompts are fed in pieces of this size, each its own GPU submit):
   * keeps every submit short, so a stop or a page reload waits at most one piece; default 128.
   */
  prefillChunkTokens?: number;
  /** Bytes the device may use for the whole plan when deriving T (WebGPU does not say); default 4 GiB. */
  gpuMemoryBytes?: number;
  /** Rows of the LM head's logits per chunk in training (chunk × V f32); default 64. */
  logitChunkRows?: number;
  /** The KV cache's storage; default `trainingKvCache`: f32 where it fits the memory budget, else f16. */
  kvCache?: KvCacheFormat;
}

const DEFAULT_GPU_MEMORY_BYTES = 4 * 1024 ** 3;
const DEFAULT_LOGIT_CHUNK_ROWS = 64;

/** Key of the slots' caches: the generate path always runs the live adapter, whose changes forget every cache. */
const LIVE_ADAPTER = 'live-adapter';

export class GpuTrainableModel implements CheckpointableModel {
  readonly tokenizer: Tokenizer;
  readonly contextTokens: number;
  readonly microBatchLimits: MicroBatchLimits;
  readonly engine: QwenEngine;
  readonly trainer: QwenTrainer;
  private readonly model: ModelConfig;
  /** The live adapter's config (alpha may change with `loadAdapter`; rank and targets are the plan's). */
  private lora: LoraConfig;
  /** Most tokens per generation forward (GpuTrainableModelOptions.prefillChunkTokens). */
  private readonly prefillChunk: number;
  /** What each engine slot's KV cache holds (reused by the next turn's prompts) and which prompt takes which slot. */
  private readonly slots: SlotScheduler;
  /** The final norm's weight γ (C) as loaded, and the temperature T whose γ / T the engine holds now. */
  private readonly finalNorm: Float32Array;
  private normTemperature = 1;
  /** The KL reference adapter (frozen f32 copy, shapes checked), or null for the base model. */
  private reference: { layers: Array<Partial<Record<LoraTarget, { a: Tensor; b: Tensor }>>>; scale: number } | null = null;

  private constructor(model: ModelConfig, engine: QwenEngine, trainer: QwenTrainer, tokenizer: Tokenizer, lora: LoraConfig, prefillChunk: number, finalNorm: Float32Array) {
    this.finalNorm = finalNorm;
    this.prefillChunk = prefillChunk;
    this.model = model;
    this.engine = engine;
    this.trainer = trainer;
    this.tokenizer = tokenizer;
    this.lora = lora;
    const { batch: B, context: S, maxTokens: T } = engine.plan.options;
    this.contextTokens = S;
    this.slots = new SlotScheduler(B);
    this.microBatchLimits = { maxTokens: T, maxSequences: B, maxSequenceTokens: Math.min(S, T) };
  }

  /**
   * Plans the engine (B = rolloutSlots, S = contextTokens, T = microBatchTokens or the most that fits the memory
   * budget), uploads `tensors` (HF names, as src/model/load.ts gives them) and a fresh adapter, compiles the trainer.
   * The tensors may be dropped afterwards (the GPU holds its own copy).
   */
  static async create(ctx: GpuContext, config: ModelConfig, tensors: ReadonlyMap<string, TensorLike>, tokenizer: Tokenizer, options: GpuTrainableModelOptions): Promise<GpuTrainableModel> {
    validateLoraConfig(options.lora);
    const { rolloutSlots: B, contextTokens: S } = options;
    if (tokenizer.size > config.vocabSize) throw new RangeError(`tokenizer has ${tokenizer.size} ids but the model's vocabulary is ${config.vocabSize}`);
    if (!Number.isInteger(B) || B < 1) throw new RangeError(`rolloutSlots must be a positive integer, got ${B}`);
    if (!Number.isInteger(S) || S < 2) throw new RangeError(`contextTokens must be an integer >= 2, got ${S}`);
    const weights = options.weights ?? 'f16';
    const logitChunkRows = options.logitChunkRows ?? DEFAULT_LOGIT_CHUNK_ROWS;
    const lora = { rank: options.lora.rank, targets: options.lora.targetModules };
    const kvCache = options.kvCache ?? trainingKvCache(config, options, weights, logitChunkRows, maxChunkBytes(ctx.limits));
    const T = microBatchTokensFor(ctx, config, options, weights, logitChunkRows, kvCache);
    const engine = await QwenEngine.create(ctx, config, { batch: B, context: S, maxTokens: T, weights, lora, kvCache, training: { logitChunkRows } });
    try {
      engine.loadWeights(tensors);
      const adapter = createLoraAdapter(config, options.lora, createRng(options.seed));
      engine.loadLora(adapter.layers, loraScale(options.lora));
      const trainer = await QwenTrainer.create(engine);
      const norm = tensors.get('model.norm.weight');
      if (norm === undefined) throw new RangeError('GpuTrainableModel: the checkpoint has no model.norm.weight');
      return new GpuTrainableModel(config, engine, trainer, tokenizer, options.lora, options.prefillChunkTokens ?? PROMPT_PIECE_TOKENS, Float32Array.from(norm.data));
    } catch (e) {
      engine.destroy();
      throw e;
    }
  }

  /**
   * Every request decoded on the B slots (rollout-decode.ts): each step advances every seated sequence by one token
   * (one `sample` per sampling setting), a slot freed by an ended reply takes the next request, and prompts that
   * share a prefix compute it once. `options.signal` is checked before every decode step: an abort rejects within
   * one step.
   */
  async generate(requests: readonly GenerateRequest[], options: GenerateOptions = {}): Promise<SampledGeneration[]> {
    requests.forEach((r, i) => this.checkRequest(r, i));
    this.useTemperature(1); // the sampler divides by each request's temperature itself
    this.engine.setLoraEnabled(true);
    const ends = new Set([this.tokenizer.special.imEnd, this.tokenizer.special.endOfText]);
    // A failed or aborted step forgets the caches of the slots it was feeding (their engine lengths are stale).
    const replies = await decodeRollouts(this.engine, this.slots, requests, { ...options, key: LIVE_ADAPTER, endTokens: ends, prefillChunk: this.prefillChunk });
    return replies.map(({ tokenIds, logProbs, prefillTokens }) => {
      const last = tokenIds.at(-1);
      const shown = last !== undefined && ends.has(last) ? tokenIds.slice(0, -1) : tokenIds;
      return { tokenIds, logProbs, text: this.tokenizer.decode(shown), prefillTokens };
    });
  }

  async forward(batch: readonly ScoredSequence[], options: ForwardOptions = {}): Promise<Float32Array> {
    batch.forEach((s, i) => {
      if (s.lossMask.length !== s.tokenIds.length) throw new RangeError(`forward: sequence ${i} has ${s.tokenIds.length} tokens but a loss mask of ${s.lossMask.length}`);
    });
    const sequences = batch.map((s) => ({ ids: s.tokenIds, scored: scoredPositions(s) }));
    this.slots.forgetAll(); // the training forward writes the engine's KV caches
    const temperature = scoringTemperature(options);
    if (options.reference) return this.referenceForward(sequences, temperature);
    this.useTemperature(temperature);
    this.backwardTemperature = temperature;
    return this.trainer.forward({ sequences }, { adapterEnabled: options.adapter ?? true });
  }

  /** The temperature of the latest live forward, which its backward must see too. */
  private backwardTemperature = 1;

  backward(dlogprob: Float32Array): Promise<void> {
    this.useTemperature(this.backwardTemperature);
    return this.trainer.backward(dlogprob);
  }

  /** Freezes a copy of `adapter` as the KL reference (null: the base model); see the header. */
  setReferenceAdapter(adapter: LoraAdapter | null): void {
    if (adapter === null || adapterIsIdentity(adapter)) {
      this.reference = null;
      return;
    }
    validateLoraConfig(adapter.config);
    this.checkConfig('setReferenceAdapter', adapter.config);
    const layers = this.checkLayers('setReferenceAdapter', adapter.layers, (pair) => pair).map((layer) => {
      const out: Partial<Record<LoraTarget, { a: Tensor; b: Tensor }>> = {};
      for (const [t, pair] of Object.entries(layer) as Array<[LoraTarget, { a: Tensor; b: Tensor }]>) {
        out[t] = { a: { shape: [...pair.a.shape], data: Float32Array.from(pair.a.data) }, b: { shape: [...pair.b.shape], data: Float32Array.from(pair.b.data) } };
      }
      return out;
    });
    this.reference = { layers, scale: loraScale(adapter.config) };
  }

  /** Scores under the reference: the base model, or the reference adapter swapped in and the live one put back. */
  private async referenceForward(sequences: Array<{ ids: readonly number[]; scored: number[] }>, temperature: number): Promise<Float32Array> {
    this.useTemperature(temperature);
    const reference = this.reference;
    if (reference === null) return this.trainer.forward({ sequences }, { adapterEnabled: false });
    const live = this.toLayers(await this.trainer.readLora(), (pair) => pair);
    const liveScale = this.engine.loraScaling;
    this.engine.loadLora(reference.layers, reference.scale);
    try {
      return await this.trainer.forward({ sequences }, { adapterEnabled: true });
    } finally {
      this.engine.loadLora(live, liveScale);
      this.trainer.forgetForward(); // the kept activations were the reference's: no backward of them
    }
  }

  /** Makes the engine's final-norm weight γ / T (see the header). */
  private useTemperature(temperature: number): void {
    if (temperature === this.normTemperature) return;
    const C = this.finalNorm.length;
    this.engine.memory.write('model.norm.weight', [C], temperature === 1 ? this.finalNorm : this.finalNorm.map((g) => g / temperature));
    this.normTemperature = temperature;
  }

  optimizerStep(settings: AdamWSettings): Promise<{ gradNorm: number }> {
    this.slots.forgetAll(); // a new adapter: no cache computed with the old one is reused
    return this.trainer.optimizerStep(settings);
  }

  /** Bytes of the engine's memory plan (weights, adapter, activations, KV cache, training buffers). */
  gpuBytes(): number {
    return this.engine.plan.totalBytes;
  }

  /** The live adapter (the f32 masters the engine computes and trains with). */
  async readAdapter(): Promise<LoraAdapter> {
    const pairs = await this.trainer.readLora();
    return { config: { ...this.lora }, layers: this.toLayers(pairs, (t) => t) };
  }

  /** Replaces the live adapter; its rank and targets must be the plan's (its alpha and rsLoRA set the new scale). */
  loadAdapter(adapter: LoraAdapter): void {
    validateLoraConfig(adapter.config);
    this.checkConfig('loadAdapter', adapter.config);
    const layers = this.checkLayers('loadAdapter', adapter.layers, (pair) => pair);
    this.engine.loadLora(layers, loraScale(adapter.config));
    this.slots.forgetAll();
    this.lora = { ...adapter.config };
    this.trainer.forgetForward();
  }

  /** AdamW's moments of every adapter tensor. */
  async readOptimizerState(): Promise<OptimizerState> {
    const { m, v } = await this.trainer.readAdamMoments();
    const layers = this.toLayers(m, (pair, l, p) => {
      const vv = v[l][p]!;
      return { a: { m: pair.a, v: { shape: pair.a.shape, data: vv.a } }, b: { m: pair.b, v: { shape: pair.b.shape, data: vv.b } } };
    });
    return { config: { ...this.lora }, layers };
  }

  /** Restores AdamW's moments (shapes checked against the plan). */
  loadOptimizerState(state: OptimizerState): void {
    this.checkConfig('loadOptimizerState', state.config);
    const m = this.checkLayers('loadOptimizerState', state.layers, (x) => ({ a: x.a.m, b: x.b.m }));
    const v = this.checkLayers('loadOptimizerState', state.layers, (x) => ({ a: x.a.v, b: x.b.v }));
    const f32 = (layers: typeof m): LoraTensors =>
      layers.map((layer) => Object.fromEntries(Object.entries(layer).map(([p, pair]) => [p, { a: Float32Array.from(pair.a.data), b: Float32Array.from(pair.b.data) }])));
    this.trainer.loadAdamMoments(f32(m), f32(v));
  }

  /** Destroys the trainer and the engine (every GPU buffer this model created); the context stays the caller's. */
  destroy(): void {
    this.trainer.destroy();
    this.engine.destroy();
  }

  // --- generation ------------------------------------------------------------------------------------------------

  private checkRequest(r: GenerateRequest, i: number): void {
    const where = `generate: request ${i}`;
    if (r.promptTokenIds.length === 0) throw new RangeError(`${where} has an empty prompt`);
    if (r.promptTokenIds.length >= this.contextTokens) throw new RangeError(`${where}: a prompt of ${r.promptTokenIds.length} tokens fills the context of ${this.contextTokens}`);
    if (!Number.isInteger(r.maxNewTokens) || r.maxNewTokens < 0) throw new RangeError(`${where}: maxNewTokens ${r.maxNewTokens} must be an integer >= 0`);
    if (!Number.isInteger(r.seed) || r.seed < 0 || r.seed > 0xffffffff) throw new RangeError(`${where}: seed ${r.seed} must be a uint32`);
    checkSamplingParams({ temperature: r.temperature, topP: r.topP });
  }

  // --- adapter and optimiser state ---------------------------------------------------------------------------------

  private checkConfig(where: string, config: LoraConfig): void {
    const planned = this.engine.plan.options.lora!;
    if (config.rank !== planned.rank) throw new LoraConfigError('rank', `${where}: rank ${config.rank} differs from the engine's rank ${planned.rank}; create the model with lora.rank = ${config.rank}`);
    const want = [...planned.targets].sort().join(', ');
    const got = [...config.targetModules].sort().join(', ');
    if (want !== got) throw new LoraConfigError('target_modules', `${where}: targets [${got}] differ from the engine's [${want}]; create the model with those targets`);
  }

  /** Every planned (layer, target) pair of `layers`, with A (R, in) and B (out, R) shapes checked. */
  private checkLayers<X>(where: string, layers: ReadonlyArray<Partial<Record<LoraTarget, X>>>, pairOf: (x: X) => { a: Tensor; b: Tensor }): Array<Partial<Record<LoraTarget, { a: Tensor; b: Tensor }>>> {
    const L = this.model.numLayers;
    if (layers.length !== L) throw new LoraConfigError('layers', `${where}: ${layers.length} layers given, the model has ${L}`);
    return layers.map((layer, l) => {
      const out: Partial<Record<LoraTarget, { a: Tensor; b: Tensor }>> = {};
      for (const t of this.lora.targetModules) {
        const x = layer[t];
        if (x === undefined) throw new LoraConfigError(t, `${where}: layer ${l} has no ${t} pair`);
        const pair = pairOf(x);
        const shapes = loraShapes(this.model, this.lora, t);
        for (const [which, tensor, shape] of [['A', pair.a, shapes.a], ['B', pair.b, shapes.b]] as const) {
          const n = shape[0] * shape[1];
          if (tensor.shape.join(',') !== shape.join(',') || tensor.data.length !== n) {
            throw new LoraConfigError(t, `${where}: layer ${l} ${t} ${which} has shape [${tensor.shape.join(', ')}] (${tensor.data.length} values), expected [${shape.join(', ')}]`);
          }
        }
        out[t] = pair;
      }
      return out;
    });
  }

  /** The trainer's per-layer f32 pairs as tensors with their shapes, mapped by `fn`. */
  private toLayers<X>(pairs: LoraTensors, fn: (pair: { a: Tensor; b: Tensor }, layer: number, target: LoraTarget) => X): Array<Partial<Record<LoraTarget, X>>> {
    return pairs.map((layer, l) => {
      const out: Partial<Record<LoraTarget, X>> = {};
      for (const t of this.lora.targetModules) {
        const pair = layer[t];
        if (pair === undefined) continue;
        const shapes = loraShapes(this.model, this.lora, t);
        out[t] = fn({ a: { shape: shapes.a, data: pair.a }, b: { shape: shapes.b, data: pair.b } }, l, t);
      }
      return out;
    });
  }
}

/**
 * The KV cache's storage for training when the caller names none: f32 where the plan with an f32 cache fits the memory
 * budget with at least one whole sequence per micro-batch (the caller's `microBatchTokens`, if given), else f16, which
 * halves the cache (Qwen3-0.6B GRPO, G = 4 of 2,048 tokens, f16 weights: 3.60 → 2.72 GiB, inside 3 GB). Why f32 first:
 * on 16 seeds of the toy GRPO run (scripts/kv-cache-seeds.ts, docs/training.md "The KV cache in training") an f16
 * cache met the learning bar in 3 runs against f32's 6 (mean gain 0.257 vs 0.315), so memory is traded for it only
 * where it is needed.
 */
export function trainingKvCache(config: ModelConfig, options: GpuTrainableModelOptions, weights: WeightFormat, logitChunkRows: number, maxBindingBytes: number): KvCacheFormat {
  const { rolloutSlots: B, contextTokens: S } = options;
  const budget = tokenBudgetForMemory(config, {
    availableBytes: options.gpuMemoryBytes ?? DEFAULT_GPU_MEMORY_BYTES,
    batch: B,
    context: S,
    lora: { rank: options.lora.rank, targets: options.lora.targetModules },
    weights,
    logitChunkRows,
    maxBindingBytes,
    kvCache: 'f32',
  });
  const needed = options.microBatchTokens ? Math.min(options.microBatchTokens, B * S) : Math.max(B, Math.min(S, B * S));
  return budget.maxTokens !== null && budget.maxTokens >= needed ? 'f32' : 'f16';
}

/** T for the plan: the caller's `microBatchTokens`, or the largest that fits the memory budget. */
function microBatchTokensFor(ctx: GpuContext, config: ModelConfig, options: GpuTrainableModelOptions, weights: WeightFormat, logitChunkRows: number, kvCache: KvCacheFormat): number {
  const { rolloutSlots: B, contextTokens: S } = options;
  const asked = options.microBatchTokens ?? 0;
  if (asked > 0) {
    if (!Number.isInteger(asked) || asked < B) throw new RangeError(`microBatchTokens ${asked} must be an integer >= rolloutSlots (${B}), or 0 to derive it from the GPU memory`);
    return Math.min(asked, B * S);
  }
  const availableBytes = options.gpuMemoryBytes ?? DEFAULT_GPU_MEMORY_BYTES;
  const budget = tokenBudgetForMemory(config, {
    availableBytes,
    batch: B,
    context: S,
    lora: { rank: options.lora.rank, targets: options.lora.targetModules },
    weights,
    logitChunkRows,
    maxBindingBytes: maxChunkBytes(ctx.limits),
    kvCache,
  });
  if (budget.maxTokens === null) throw new GpuOutOfMemoryError('training plan', budget.bytes, budget.message);
  return budget.maxTokens;
}
