/**
 * The Qwen2/Qwen3 forward on the GPU: prefill and batched KV-cached decode of several sequences at once, each in its
 * own cache slot, with a live LoRA adapter on any projection. Every buffer comes from the memory plan; one step is
 * one `Recorder` submit, and the only readback is the logits of each sequence's last new token.
 *
 * One forward of T packed tokens (any mix of sequences, each continuing its own cache), per layer l:
 *   xn   = rmsnorm(x, input_layernorm)                     (T, C)
 *   q,k,v = xn·Wᵀ [+ bias qwen2] [+ LoRA]                   (T, H·D) (T, KVH·D) (T, KVH·D)
 *   q,k  = rmsnorm per head (q_norm, k_norm; qwen3)         then rope(q), rope(k) at each token's position
 *   kv.l[slot, pos] = k, v;  attn = attention(q, kv.l)     (T, H·D)
 *   x   += attn·o_projᵀ [+ LoRA]
 *   xn   = rmsnorm(x, post_attention_layernorm)
 *   x   += (silu(xn·gateᵀ) · xn·upᵀ)·downᵀ [+ LoRA each]
 * then the last new row of each sequence is copied out, normed, and multiplied by lm_head (or the tied embedding);
 * `step` reads those logits back, `sample` draws each sequence's next token on the GPU (kernels/sample.ts) and reads
 * back only (token, log-prob) per sequence: one more dispatch, 16 bytes per sequence instead of 4·V.
 *
 * Base matrices are stored in `options.weights` (quant.ts): q4 groups by default for decode, q8, or f16 (the
 * reference); they are encoded on the CPU in `loadWeights` and dequantised inside the matmul and embedding kernels.
 * Nothing is kept between layers but x and the cache, so a training pass can recompute any layer from its input.
 *
 * Fused forward (issue 14): forwards of fewer than TILED_MIN_ROWS tokens (decode, short prefills) record each layer
 * with the fused kernels of engine/fused-layer.ts (7 dispatches instead of ~18), and a step's result is copied for
 * readback inside its single submit; `options.fused: false` records `encodeLayer` everywhere (both checked equal).
 *
 * Training (issue 5): created with `options.training` (and `options.lora`), the same engine is driven by a
 * `QwenTrainer` (qwen-trainer.ts) that records the same per-layer calls (`encodeLayer`) on the same buffers and the
 * same live adapter, so the policy that samples is the policy that learns.
 *
 * Ownership: the engine owns its allocated plan and recorder and destroys them in `destroy()`; `ctx` is the caller's.
 */
import { allocatePlan, type AllocatedPlan } from '../allocate.ts';
import { align4 } from '../buffers.ts';
import type { GpuContext } from '../device.ts';
import { GpuLimitError, GpuOutOfMemoryError, GpuShapeError } from '../errors.ts';
import { buildRopeTable } from '../kernels/rope-table.ts';
import { kvCacheBytes } from '../kv-format.ts';
import { TILED_MIN_ROWS, type LoraBranch } from '../kernels/matmul.ts';
import { BufferUsage, MapMode } from '../flags.ts';
import { checkSamplingParams, packSampleKeys, unpackSampled, type Sampled, type SamplingParams } from '../kernels/sample.ts';
import type { SampleKey } from '../kernels/sample-rng.ts';
import { DEFAULT_DECODE_WEIGHTS, encodeWeight, matrixFormats } from '../quant.ts';
import { formatBytes, matrixFormat, planMemory, type MemoryPlan, type PlanDims, type PlanOptions } from '../memory-plan.ts';
import { projectionPrefix, type Projection } from '../../model/weights.ts';
import { Recorder, type BufferArg } from '../recorder.ts';
import { maxChunkBytes } from '../split.ts';
import { encodeFusedLayer, fusedSpecs, fusedUnsupported } from './fused-layer.ts';
import { createEngineOps, type EngineOps } from './ops.ts';
import { suggestTrainingFit } from './train-fit.ts';

/** Model dimensions and constants (a `ModelConfig` of src/model matches structurally). */
export interface EngineModel extends PlanDims {
  rmsNormEps: number;
  ropeTheta: number;
}

/** A tensor as the loader gives it: row-major data with its PyTorch shape. */
export interface TensorLike {
  shape: readonly number[];
  data: Float32Array | Float64Array;
}

/** A LoRA adapter's pairs per layer and target (the shape of src/model's `LoraAdapter.layers`). */
export type LoraLayers = ReadonlyArray<Partial<Record<Projection, { a: TensorLike; b: TensorLike }>>>;

/**
 * Plan options; `weights` (the base matrices' storage) defaults to DEFAULT_DECODE_WEIGHTS ('q8'); `training` adds
 * the buffers a `QwenTrainer` needs (checkpoints, gradients, AdamW state; with `lora`).
 */
export type EngineOptions = Omit<PlanOptions, 'maxBindingBytes' | 'logitRows'> & {
  /**
   * Record the forward's layers with the fused kernels (engine/fused-layer.ts: 7 dispatches per layer) for forwards
   * of fewer than TILED_MIN_ROWS tokens; default true. false records the unfused `encodeLayer` (the trainer's per-layer
   * calls), kept so both stay testable side by side.
   */
  fused?: boolean;
  /**
   * Storage buffers one fused dispatch may bind (default: the device's maxStorageBuffersPerShaderStage); groups that
   * would bind more are split (fused-layer.ts). Lower it to exercise the splits a smaller adapter takes.
   */
  fusedBindingLimit?: number;
};

/** How `encodeLayer` records one layer (the engine's own forward uses the defaults). */
export interface LayerOptions {
  /** Run the LoRA branches (default: the engine's current setting, `setLoraEnabled`). */
  lora?: boolean;
  /** Where each projection's u = x·Aᵀ (T, R) goes (default: the shared scratch `act.loraU`). */
  loraU?: (p: Projection) => BufferArg;
  /** Stop before the MLP's residual add: act.x stays x + attention (the training recompute needs it). */
  skipMlpResidual?: boolean;
}

/** New tokens of one sequence, appended at its current length. */
export interface StepInput {
  slot: number;
  ids: readonly number[];
}

/** A step input whose next token is sampled, with the key of that draw. */
export interface SampleInput extends StepInput {
  key: SampleKey;
}

/**
 * How `sample` may split its work into GPU submits: forwards of at most `maxTokensPerForward` tokens (default the
 * plan's T; smaller keeps each submit short on a slow adapter, so a page reload or a stop never waits long behind
 * one), with `signal` checked between them.
 */
export interface SubmitOptions {
  maxTokensPerForward?: number;
  signal?: AbortSignal;
}

/**
 * The prompt piece the page's generation uses (`maxTokensPerForward`) for training and for Watch/Evaluate: SwiftShader
 * runs a 128-token forward of the tiny test model in about a second; a GPU barely notices the split.
 */
export const PROMPT_PIECE_TOKENS = 128;

/** What one forward hands back for its wanted rows: their logits, or their sampler results (rows, 4). */
type ForwardResult = { kind: 'logits'; rows: Float32Array } | { kind: 'sampled'; rows: Uint32Array };

interface PackedToken {
  slot: number;
  id: number;
  position: number;
  /** Index of the input whose last token this is (its logits are wanted), or -1. */
  logitOf: number;
}

/** `work`'s result, or a rejection with `signal`'s reason as soon as it aborts (`work` itself goes on). */
function unlessAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  signal.throwIfAborted();
  let stop = (): void => {};
  const aborted = new Promise<void>((resolve) => {
    stop = resolve;
    signal.addEventListener('abort', stop, { once: true });
  });
  // throwIfAborted throws the signal's reason, as the checks between forwards do.
  const rejection = aborted.then((): never => {
    signal.throwIfAborted();
    throw new Error('unreachable: the signal aborted');
  });
  return Promise.race([work, rejection]).finally(() => signal.removeEventListener('abort', stop));
}

/**
 * allocatePlan, and for a training plan an out-of-memory error (or a tensor above one binding) that names the
 * smaller setting to try (train-fit.ts).
 */
async function allocateForTraining(ctx: GpuContext, plan: MemoryPlan, model: EngineModel, options: EngineOptions): Promise<AllocatedPlan> {
  try {
    return await allocatePlan(ctx, plan);
  } catch (error) {
    if (!options.training || !(error instanceof GpuOutOfMemoryError || error instanceof GpuLimitError)) throw error;
    const maxBinding = plan.options.maxBindingBytes;
    const suggestion = suggestTrainingFit(model, { ...options, maxBindingBytes: maxBinding });
    const over = plan.entries.find((e) => !e.chunks && e.bytes > maxBinding);
    const what =
      error instanceof GpuOutOfMemoryError ? error.tensor : over ? `${over.name}, ${formatBytes(over.bytes)} above one ${formatBytes(maxBinding)} binding` : error.message;
    throw new GpuOutOfMemoryError(`training plan (${what})`, plan.totalBytes, suggestion ? suggestion.text : 'Pick a smaller model.');
  }
}

export class QwenEngine {
  readonly model: EngineModel;
  readonly plan: MemoryPlan;
  /** Dispatches of the most recent step (all forwards it took). */
  lastStepDispatches = 0;
  private readonly ctx: GpuContext;
  private readonly mem: AllocatedPlan;
  private readonly ops: EngineOps;
  private readonly rec: Recorder;
  private readonly lengths: number[];
  /** Per slot: changes made to its cache (`writeCount`). */
  private readonly writes: number[];
  private loraScale = 0;
  private loraOn = false;
  /** Why the fused forward is off for this engine (the option, or what the model needs), or null when it is on. */
  readonly fusedOff: string | null;
  /** The readback buffer the step's single submit copies its results into (created on first use, destroyed in destroy()). */
  private staging: { buffer: GPUBuffer; device: GPUDevice } | null = null;
  /** Where `copyPrefix` passes a slot's cache rows through (WebGPU copies never stay within one buffer). */
  private kvScratch: { buffer: GPUBuffer; device: GPUDevice } | null = null;
  private readonly fusedLimit: number;
  /**
   * The fused kernels of each LoRA state (on / off), compiled on the first fused forward in that state: a training
   * run decodes only with its adapter on, Watch without an adapter only with it off, and on a software adapter each
   * of these kernels costs about a second to compile.
   */
  private readonly fusedReady = new Map<boolean, Promise<void>>();

  private constructor(ctx: GpuContext, model: EngineModel, plan: MemoryPlan, mem: AllocatedPlan, ops: EngineOps, fusedOff: string | null, fusedLimit: number) {
    this.fusedOff = fusedOff;
    this.fusedLimit = fusedLimit;
    this.ctx = ctx;
    this.model = model;
    this.plan = plan;
    this.mem = mem;
    this.ops = ops;
    this.rec = new Recorder(ctx, 'qwen-engine');
    this.lengths = new Array<number>(plan.options.batch).fill(0);
    this.writes = new Array<number>(plan.options.batch).fill(0);
  }

  static async create(ctx: GpuContext, model: EngineModel, options: EngineOptions): Promise<QwenEngine> {
    const weights = options.weights ?? DEFAULT_DECODE_WEIGHTS;
    const plan = planMemory(model, { ...options, weights, logitRows: options.batch, maxBindingBytes: maxChunkBytes(ctx.limits) });
    const [mem, ops] = await Promise.all([allocateForTraining(ctx, plan, model, { ...options, weights }), createEngineOps(ctx, matrixFormats(weights), plan.options.kvCache)]);
    const lora = plan.options.lora;
    const fusedOff = options.fused === false ? 'options.fused is false' : fusedUnsupported(model, mem, lora?.rank ?? null);
    const limit = Math.min(ctx.limits.maxStorageBuffersPerShaderStage, options.fusedBindingLimit ?? Infinity);
    const engine = new QwenEngine(ctx, model, plan, mem, ops, fusedOff, limit);
    const { context: S } = plan.options;
    mem.write('rope.table', [S, model.headDim / 2, 2], buildRopeTable(model.headDim, model.ropeTheta, S));
    return engine;
  }

  /** Compiles (once) the fused kernels the layers record with while LoRA is `loraOn`. */
  private prepareFused(loraOn: boolean): Promise<void> {
    let ready = this.fusedReady.get(loraOn);
    if (!ready) {
      const targets = loraOn ? (this.plan.options.lora?.targets ?? []) : [];
      ready = this.ops.fusedLinear.prepare(fusedSpecs(this.model, this.mem, targets, this.fusedLimit));
      this.fusedReady.set(loraOn, ready);
      ready.catch(() => this.fusedReady.delete(loraOn)); // a failed compile is tried again by the next forward
    }
    return ready;
  }

  /** The LM head's weight name: lm_head, or the tied embedding. */
  private static headWeight(mem: AllocatedPlan): string {
    return mem.has('lm_head.weight') ? 'lm_head.weight' : 'model.embed_tokens.weight';
  }

  /** Uploads every planned weight from `tensors` (HF names; matrices encoded in the plan's format on the CPU). Extra tensors are ignored. */
  loadWeights(tensors: ReadonlyMap<string, TensorLike>): void {
    for (const e of this.plan.entries) {
      if (e.kind !== 'weight') continue;
      const t = tensors.get(e.name);
      if (!t) throw new GpuShapeError(`weights`, `tensor ${e.name} (${e.shape.join(', ')}) is missing`);
      const format = matrixFormat(e.dtype);
      this.mem.entry(e.name, t.shape);
      if (format) this.mem.writePacked(e.name, t.shape, encodeWeight(format, t.data, e.shape[0], e.shape[1], e.name));
      else this.mem.write(e.name, t.shape, Float32Array.from(t.data));
    }
  }

  /** Uploads a LoRA adapter (every planned target of every layer) and turns it on, with y += scale·(x·Aᵀ)·Bᵀ. */
  loadLora(layers: LoraLayers, scale: number): void {
    const lora = this.plan.options.lora;
    if (!lora) throw new GpuShapeError('loadLora', 'the engine was planned without LoRA; create it with options.lora');
    for (let l = 0; l < this.model.numLayers; l++) {
      for (const p of lora.targets) {
        const pair = layers[l]?.[p];
        const name = projectionPrefix(l, p);
        if (!pair) throw new GpuShapeError('loadLora', `layer ${l} has no ${p} pair`);
        this.mem.write(`${name}.lora_A`, pair.a.shape, Float32Array.from(pair.a.data));
        this.mem.write(`${name}.lora_B`, pair.b.shape, Float32Array.from(pair.b.data));
      }
    }
    this.loraScale = scale;
    this.loraOn = true;
  }

  /** The device context, the allocated plan, the forward ops and the adapter's scale: what a trainer shares. */
  get context(): GpuContext {
    return this.ctx;
  }

  get memory(): AllocatedPlan {
    return this.mem;
  }

  get forwardOps(): EngineOps {
    return this.ops;
  }

  /** The LoRA scale of the loaded adapter (0 before `loadLora`). */
  get loraScaling(): number {
    return this.loraScale;
  }

  get loraEnabled(): boolean {
    return this.loraOn;
  }

  /** Runs without the adapter (the base model) or with it again. */
  setLoraEnabled(on: boolean): void {
    if (on && !this.plan.options.lora) throw new GpuShapeError('setLoraEnabled', 'the engine was planned without LoRA');
    this.loraOn = on;
  }

  /** Tokens in a slot's cache. */
  length(slot: number): number {
    return this.lengths[slot];
  }

  /**
   * Changes made to a slot's cache so far: reset, rewind, a copy into it, a step feeding it. A cache user that
   * records it after its own changes (PrefixSlots) sees any other writer's, even one that leaves the same length.
   */
  writeCount(slot: number): number {
    return this.writes[slot];
  }

  /** Forgets a slot's sequence (its cache is overwritten from position 0 by the next step). */
  reset(slot: number): void {
    this.lengths[slot] = 0;
    this.writes[slot]++;
  }

  /** Keeps the first `length` tokens of a slot's cache (a shared prefix); the next step overwrites from there. */
  rewind(slot: number, length: number): void {
    if (!Number.isInteger(length) || length < 0 || length > this.lengths[slot]) throw new GpuShapeError('rewind', `slot ${slot}: length ${length} is outside 0..${this.lengths[slot]}`);
    this.lengths[slot] = length;
    this.writes[slot]++;
  }

  /**
   * Gives slot `to` the first `length` cached positions of slot `from` (every layer's keys and values), so a prompt
   * that shares them with another slot's sequence is not prefilled again; `to`'s length becomes `length`. The copies
   * are recorded for the next step's submit, ahead of its dispatches (so `from` may be stepped, or `to` written, in
   * that same step). Keys are stored after RoPE at absolute positions, so the same tokens at the same positions
   * give the same rows in any slot.
   */
  copyPrefix(from: number, to: number, length: number): void {
    const { batch: B, context: S, kvCache } = this.plan.options;
    for (const slot of [from, to]) if (!Number.isInteger(slot) || slot < 0 || slot >= B) throw new GpuShapeError('copyPrefix', `slot ${slot} is outside 0..${B - 1}`);
    if (from === to) throw new GpuShapeError('copyPrefix', `slot ${from} is both source and destination`);
    if (!Number.isInteger(length) || length < 1 || length > this.lengths[from]) throw new GpuShapeError('copyPrefix', `length ${length} is outside 1..${this.lengths[from]} (slot ${from}'s cache)`);
    const row = kvCacheBytes(kvCache, this.model.numKvHeads * this.model.headDim); // a multiple of 4: D is even
    const bytes = length * row;
    const device = this.ctx.device;
    if (!this.kvScratch || this.kvScratch.device !== device || this.kvScratch.buffer.size < bytes) {
      if (this.kvScratch?.device === device) this.kvScratch.buffer.destroy();
      // Sized for a whole slot once, so later copies reuse it.
      this.kvScratch = { buffer: device.createBuffer({ label: 'qwen-engine.kv-scratch', size: S * row, usage: BufferUsage.COPY_SRC | BufferUsage.COPY_DST }), device };
    }
    const scratch = this.kvScratch.buffer;
    for (let l = 0; l < this.model.numLayers; l++) {
      for (const part of ['k', 'v']) {
        const cache = this.mem.buffer(`kv.${l}.${part}`);
        this.rec.copy(cache, from * S * row, scratch, 0, bytes);
        this.rec.copy(scratch, 0, cache, to * S * row, bytes);
      }
    }
    this.lengths[to] = length;
    this.writes[to]++;
  }

  /**
   * Appends each input's tokens to its slot's sequence and returns the logits (inputs.length, V) of each input's
   * last token. Prefill is an input with many ids, decode one id per sequence; any mix works in one step. Steps
   * larger than the planned T tokens run as several forwards.
   */
  async step(inputs: readonly StepInput[]): Promise<Float32Array> {
    const V = this.model.vocabSize;
    const logits = new Float32Array(inputs.length * V);
    await this.run(inputs, null, (input, result, r) => {
      if (result.kind === 'logits') logits.set(result.rows.subarray(r * V, (r + 1) * V), input * V);
    });
    return logits;
  }

  /**
   * Like `step`, then draws each input's next token on the GPU with `sampling` and the input's key (temperature 0 is
   * greedy). Returns per input the token, its log-probability under the distribution used, the uniform drawn and
   * the kept-token count; the logits never leave the GPU. The tokens are not appended: pass them to the next call.
   */
  async sample(inputs: readonly SampleInput[], sampling: SamplingParams, submits: SubmitOptions = {}): Promise<Sampled> {
    const M = inputs.length;
    checkSamplingParams(sampling);
    packSampleKeys(inputs.map((i) => i.key)); // validates every key before anything is recorded
    const words = new Uint32Array(M * 4);
    await this.run(
      inputs,
      { sampling, keys: inputs.map((i) => i.key) },
      (input, result, r) => {
        if (result.kind === 'sampled') words.set(result.rows.subarray(r * 4, r * 4 + 4), input * 4);
      },
      submits,
    );
    return unpackSampled(words, M);
  }

  /** Validates and packs the inputs, runs as many forwards as T requires, hands each wanted row to `take`. */
  private async run(
    inputs: readonly StepInput[],
    sampler: { sampling: SamplingParams; keys: readonly SampleKey[] } | null,
    take: (input: number, result: ForwardResult, row: number) => void,
    submits: SubmitOptions = {},
  ): Promise<void> {
    const { batch: B, context: S, maxTokens: planT } = this.plan.options;
    const T = Math.max(1, Math.min(planT, submits.maxTokensPerForward ?? planT));
    const V = this.model.vocabSize;
    const tokens: PackedToken[] = [];
    const seen = new Set<number>();
    inputs.forEach((input, i) => {
      if (!Number.isInteger(input.slot) || input.slot < 0 || input.slot >= B) throw new GpuShapeError('step', `slot ${input.slot} is outside 0..${B - 1}`);
      if (seen.has(input.slot)) throw new GpuShapeError('step', `slot ${input.slot} appears twice in one step`);
      seen.add(input.slot);
      if (input.ids.length === 0) throw new GpuShapeError('step', `slot ${input.slot}: no tokens given`);
      const start = this.lengths[input.slot];
      if (start + input.ids.length > S) throw new GpuShapeError('step', `slot ${input.slot}: ${start} + ${input.ids.length} tokens exceed the context S = ${S}`);
      input.ids.forEach((id, j) => {
        if (!Number.isInteger(id) || id < 0 || id >= V) throw new GpuShapeError('step', `token id ${id} (slot ${input.slot}) is outside the vocabulary V = ${V}`);
        tokens.push({ slot: input.slot, id, position: start + j, logitOf: j === input.ids.length - 1 ? i : -1 });
      });
    });
    const before = this.rec.dispatchCount;
    for (let from = 0; from < tokens.length; from += T) {
      // Between forwards: an aborted caller stops here (the slots' lengths are then stale: reset them before reuse).
      if (from > 0) submits.signal?.throwIfAborted();
      const group = tokens.slice(from, from + T);
      const result = await this.forward(group, sampler, submits.signal);
      group.filter((t) => t.logitOf >= 0).forEach((t, r) => take(t.logitOf, result, r));
    }
    for (const input of inputs) {
      this.lengths[input.slot] += input.ids.length;
      this.writes[input.slot]++;
    }
    this.lastStepDispatches = this.rec.dispatchCount - before;
  }

  /**
   * One forward of ≤ T packed tokens; returns, for the tokens marked `logitOf >= 0` in order, their logits or (with
   * a sampler) their sampled (token, log-prob, u, kept) rows.
   */
  private async forward(tokens: readonly PackedToken[], sampler: { sampling: SamplingParams; keys: readonly SampleKey[] } | null, signal?: AbortSignal): Promise<ForwardResult> {
    const m = this.model;
    const { hiddenSize: C, vocabSize: V } = m;
    const T = tokens.length;
    const mem = this.mem;
    const ops = this.ops;
    const rec = this.rec;
    const buf = (name: string) => mem.buffer(name);
    const bytes = (n: number) => ({ size: n * 4 });
    // Bindings sized to this step's T tokens (the planned buffers hold the maximum).
    const view = (name: string, elements: number) => ({ buffer: buf(name), ...bytes(elements) });
    // The fused layer is the decode shape (≤ 8 rows per weight pass); long prefills keep the tiled matmuls.
    const fused = this.fusedOff === null && T < TILED_MIN_ROWS;
    // A caller that stops does not wait for the compile (it goes on, for the next forward); nothing is written yet.
    if (fused) await unlessAborted(this.prepareFused(this.loraOn && !!this.plan.options.lora), signal);

    mem.writeRange('act.ids', Uint32Array.from(tokens, (t) => t.id));
    mem.writeRange('act.positions', Uint32Array.from(tokens, (t) => t.position));
    mem.writeRange('act.slots', Uint32Array.from(tokens, (t) => t.slot));
    const ids = view('act.ids', T);
    const x = view('act.x', T * C);
    const xn = view('act.xn', T * C);

    ops.embedding.encode(rec, { out: x, ids, table: mem.weight('model.embed_tokens.weight'), T });
    if (fused) for (let l = 0; l < m.numLayers; l++) this.encodeFusedLayer(rec, l, T);
    else for (let l = 0; l < m.numLayers; l++) this.encodeLayer(rec, l, T);

    // Logits of the wanted rows only: copy their hidden states out, norm them, multiply by the LM head.
    const wanted = tokens.map((t, i) => (t.logitOf >= 0 ? i : -1)).filter((i) => i >= 0);
    const rows = wanted.length;
    if (rows === 0) {
      await rec.finish();
      return { kind: 'logits', rows: new Float32Array(0) };
    }
    const last = buf('act.lastHidden');
    wanted.forEach((t, r) => rec.copy(buf('act.x'), t * C * 4, last, r * C * 4, C * 4));
    const head = mem.weight(QwenEngine.headWeight(mem));
    const logits = view('act.logits', rows * V);
    // The final norm stays its own dispatch: folded into the LM head (fused-linear's norm prologue), each of the
    // head's V/64 workgroups recomputes it, which measured 2× slower per decode step on SwiftShader.
    ops.rmsnorm.encode(rec, { out: xn, x: { buffer: last, size: rows * C * 4 }, weight: buf('model.norm.weight'), M: rows, C, eps: m.rmsNormEps });
    ops.matmul.encode(rec, { out: logits, x: xn, w: head, M: rows });
    if (sampler) {
      mem.writeRange('act.sampleKeys', packSampleKeys(wanted.map((t) => sampler.keys[tokens[t].logitOf])));
      ops.sample.encode(rec, { out: view('act.sampled', rows * 4), logits, keys: view('act.sampleKeys', rows * 4), M: rows, V, params: sampler.sampling });
      return { kind: 'sampled', rows: new Uint32Array(await this.submitAndRead(buf('act.sampled'), rows * 16)) };
    }
    return { kind: 'logits', rows: new Float32Array(await this.submitAndRead(buf('act.logits'), rows * V * 4)) };
  }

  /**
   * Submits the step with a copy of `bytes` of `src` into the engine's readback buffer in the same command buffer
   * (one queue submit per step), then maps and returns those bytes.
   */
  private async submitAndRead(src: GPUBuffer, bytes: number): Promise<ArrayBuffer> {
    const size = align4(bytes);
    const device = this.ctx.device;
    if (!this.staging || this.staging.device !== device || this.staging.buffer.size < size) {
      if (this.staging?.device === device) this.staging.buffer.destroy();
      this.staging = { buffer: device.createBuffer({ label: 'qwen-engine.readback', size, usage: BufferUsage.MAP_READ | BufferUsage.COPY_DST }), device };
    }
    const staging = this.staging.buffer;
    this.rec.copy(src, 0, staging, 0, size);
    this.rec.submit();
    await staging.mapAsync(MapMode.READ, 0, size);
    try {
      return staging.getMappedRange(0, size).slice(0, bytes);
    } finally {
      staging.unmap();
    }
  }

  /** Records one decoder layer with the fused kernels (engine/fused-layer.ts): the same math as `encodeLayer`. */
  private encodeFusedLayer(rec: Recorder, l: number, T: number): void {
    const lora = this.plan.options.lora;
    const loraOn = this.loraOn && !!lora;
    encodeFusedLayer({
      rec,
      ops: this.ops,
      mem: this.mem,
      model: this.model,
      B: this.plan.options.batch,
      S: this.plan.options.context,
      kvCache: this.plan.options.kvCache,
      layer: l,
      T,
      loraRank: lora?.rank ?? 0,
      loraScale: this.loraScale,
      lora: (p) => loraOn && !!lora && lora.targets.includes(p),
      limit: this.fusedLimit,
    });
  }

  /**
   * Records one decoder layer on the T tokens whose ids, positions and slots are in act.* (see the header): reads
   * and updates act.x in place, writes k and v to kv.l at each token's (slot, position), leaves every intermediate
   * of the layer in its act.* buffer (xn holds the post-attention norm's output at the end).
   */
  encodeLayer(rec: Recorder, l: number, T: number, options: LayerOptions = {}): void {
    const m = this.model;
    const { hiddenSize: C, intermediateSize: I, numHeads: H, numKvHeads: KVH, headDim: D } = m;
    const { batch: B, context: S } = this.plan.options;
    const mem = this.mem;
    const ops = this.ops;
    const buf = (name: string) => mem.buffer(name);
    // Bindings sized to this step's T tokens (the planned buffers hold the maximum).
    const view = (name: string, elements: number) => ({ buffer: buf(name), size: elements * 4 });
    const positions = view('act.positions', T);
    const slots = view('act.slots', T);
    const x = view('act.x', T * C);
    const xn = view('act.xn', T * C);
    const lora = this.plan.options.lora;
    const loraOn = options.lora ?? this.loraOn;
    const linear = (p: Projection, out: BufferArg, input: BufferArg) => {
      const name = projectionPrefix(l, p);
      const biasName = `${name}.bias`;
      let branch: LoraBranch | null = null;
      if (loraOn && lora && lora.targets.includes(p)) {
        const u = options.loraU ? options.loraU(p) : view('act.loraU', T * lora.rank);
        branch = { a: buf(`${name}.lora_A`), b: buf(`${name}.lora_B`), u, rank: lora.rank, scale: this.loraScale };
      }
      ops.matmul.encode(rec, { out, x: input, w: mem.weight(`${name}.weight`), M: T, bias: mem.has(biasName) ? buf(biasName) : null, lora: branch });
    };

    const prefix = `model.layers.${l}`;
    const q = view('act.q', T * H * D);
    const k = view('act.k', T * KVH * D);
    const v = view('act.v', T * KVH * D);
    const attn = view('act.attn', T * H * D);
    const proj = view('act.proj', T * C);
    ops.rmsnorm.encode(rec, { out: xn, x, weight: buf(`${prefix}.input_layernorm.weight`), M: T, C, eps: m.rmsNormEps });
    if (m.qkNorm) {
      const qRaw = view('act.qRaw', T * H * D);
      const kRaw = view('act.kRaw', T * KVH * D);
      linear('q_proj', qRaw, xn);
      linear('k_proj', kRaw, xn);
      ops.rmsnorm.encode(rec, { out: q, x: qRaw, weight: buf(`${prefix}.self_attn.q_norm.weight`), M: T * H, C: D, eps: m.rmsNormEps });
      ops.rmsnorm.encode(rec, { out: k, x: kRaw, weight: buf(`${prefix}.self_attn.k_norm.weight`), M: T * KVH, C: D, eps: m.rmsNormEps });
    } else {
      linear('q_proj', q, xn);
      linear('k_proj', k, xn);
    }
    linear('v_proj', v, xn);
    const table = buf('rope.table');
    ops.rope.encode(rec, { x: q, positions, table, T, NH: H, D, P: S });
    ops.rope.encode(rec, { x: k, positions, table, T, NH: KVH, D, P: S });
    const kCache = buf(`kv.${l}.k`);
    const vCache = buf(`kv.${l}.v`);
    const format = this.plan.options.kvCache;
    ops.kvcache.write(rec, { k, v, slots, positions, kCache, vCache, T, KVH, D, S, B, format });
    ops.attention.encode(rec, { out: attn, lse: view('act.lse', T * H), q, kCache, vCache, slots, positions, T, H, KVH, D, S, B, format });
    linear('o_proj', proj, attn);
    ops.residual.addInPlace(rec, { acc: x, b: proj, n: T * C });
    ops.rmsnorm.encode(rec, { out: xn, x, weight: buf(`${prefix}.post_attention_layernorm.weight`), M: T, C, eps: m.rmsNormEps });
    const gate = view('act.gate', T * I);
    const up = view('act.up', T * I);
    const act = view('act.mlp', T * I);
    linear('gate_proj', gate, xn);
    linear('up_proj', up, xn);
    ops.swiglu.encode(rec, { out: act, gate, up, n: T * I });
    linear('down_proj', proj, act);
    if (!options.skipMlpResidual) ops.residual.addInPlace(rec, { acc: x, b: proj, n: T * C });
  }

  /** Destroys every buffer of the plan and the recorder's. */
  destroy(): void {
    this.staging?.buffer.destroy();
    this.staging = null;
    this.kvScratch?.buffer.destroy();
    this.kvScratch = null;
    this.rec.destroy();
    this.mem.destroy();
  }
}

