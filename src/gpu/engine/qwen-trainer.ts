/**
 * The training pass of the Qwen engine: LoRA gradients of a loss over chosen tokens' log-probabilities, on the SAME
 * `QwenEngine` (same weights, same live adapter buffers: the policy that samples is the policy that learns), with
 * per-layer recomputation so memory grows with one layer's activations plus L checkpoints of (T, C), never with
 * L·T·I or T·V. The engine must be planned with `options.lora` and `options.training`.
 *
 * A micro-batch is a few sequences, each packed from position 0 in its own cache slot (slot s = sequence s; the
 * engine's decode state of those slots is reset), T ≤ the plan's tokens, and per sequence the positions t whose next
 * token ids[t+1] is scored. Per step (src/gpu/README.md "Training pass"):
 *   forward   embedding; per layer: copy x → train.checkpoint.l, the layer's forward (engine.encodeLayer);
 *             copy the final x aside; final norm; per chunk of ≤ logitChunkRows scored rows: gather their normed rows,
 *             matmul (chunk logits), token_logprob → log p(target). The log-probs are the only readback.
 *   backward  per chunk again: logits, token_logprob (its lse), token_logprob_backward with the caller's
 *             d(loss)/d(logprob) (in place), matmul_dx into the chunk's rows, scattered into d(xn); final-norm
 *             backward → dx. For l = L−1 … 0: x ← checkpoint l, the layer's forward again up to the MLP's output
 *             (each projection's u = x·Aᵀ kept in act.loraU.<proj>, kv.l rewritten, act.x = x + attention), then
 *             every op's backward in reverse, ADDING into the adapter's gradients (micro-batches accumulate).
 *   optimizerStep  grad_norm over every adapter tensor, fused AdamW (f32 masters = the engine's lora_A/lora_B),
 *             gradients zeroed; reads back the norm (8 bytes).
 *
 * Buffers: everything comes from the engine's memory plan (act.*, grad.*, train.*, adam.*), except a few small ones
 * this trainer owns (per-token u32/f32 rows: sequence ends, targets, d(logprob), log-probs and the LM head's lse, laid
 * out per chunk at 256-byte-aligned offsets so a chunk binds its rows without copies; and the optimiser's norm
 * buffer). Two planned buffers double as storage between phases: `grad.proj` (T, C) holds the last layer's output
 * from forward to backward (the recipe never needs d(proj): the residual's gradient is d(x) itself), and `act.proj`
 * holds a chunk's gathered normed rows and then their gradient.
 *
 * Ownership: the trainer owns its small buffers and recorder (`destroy()`); the engine, its plan and `ctx` are the
 * caller's. One trainer per engine; calls must not overlap (each awaits its own submit).
 */
import { allocateChecked, createStorage, readBuffer, readF32, writeBuffer } from '../buffers.ts';
import type { GpuContext } from '../device.ts';
import { GpuShapeError } from '../errors.ts';
import { projectionPrefix, projectionShape, type Projection } from '../../model/weights.ts';
import { DX_TILE, type MatmulDxVariant } from '../kernels/matmul-backward.ts';
import type { PackedWeight } from '../packed-weight.ts';
import { matrixFormats } from '../quant.ts';
import { Recorder, type BufferArg } from '../recorder.ts';
import type { LayerOptions, QwenEngine } from './qwen-engine.ts';
import { createTrainOps, type TrainOps } from './train-ops-factory.ts';
import type { AdamTensor, AdamWSettings } from './train-ops.ts';

/** One sequence of a micro-batch. */
export interface TrainSequence {
  /** Token ids from position 0. */
  ids: readonly number[];
  /** Scored positions t, strictly increasing, 0 ≤ t < ids.length − 1: each scores log p(ids[t + 1] | ids[0..t]). */
  scored: readonly number[];
}

export interface TrainBatch {
  sequences: readonly TrainSequence[];
}

export interface TrainForwardOptions {
  /** false: the base model's log-probs (adapter off, e.g. a KL reference); nothing is kept for a backward. Default true. */
  adapterEnabled?: boolean;
}

/** Per layer, per target: an adapter tensor pair (or its gradients) as row-major f32, A (R, in), B (out, R). */
export type LoraTensors = Array<Partial<Record<Projection, { a: Float32Array; b: Float32Array }>>>;

/** What a forward leaves for the backward: the packing of its batch. */
interface Packed {
  T: number;
  positions: Uint32Array;
  slots: Uint32Array;
  seqEnds: Uint32Array;
  /** Packed token index of every scored row, in output order. */
  rows: number[];
  /** Target ids of the scored rows, strided per chunk (see `stride`). */
  targets: Uint32Array;
}

/** 256-byte binding offsets (WebGPU's largest minStorageBufferOffsetAlignment) in 4-byte elements. */
const OFFSET_ALIGN_ELEMENTS = 64;

export class QwenTrainer {
  readonly engine: QwenEngine;
  /** Dispatches recorded by the most recent forward, backward and optimizer step. */
  readonly lastDispatches = { forward: 0, backward: 0, optimizer: 0 };
  private readonly ctx: GpuContext;
  private readonly ops: TrainOps;
  private readonly rec: Recorder;
  private readonly chunkRows: number;
  /** Elements between two chunks' rows in the per-row buffers (chunkRows rounded up to 64). */
  private readonly stride: number;
  private readonly own: { seqEnds: GPUBuffer; targets: GPUBuffer; dlogprob: GPUBuffer; logprob: GPUBuffer; lse: GPUBuffer; norm: GPUBuffer };
  private readonly adamTensors: AdamTensor[];
  /** The last forward with the adapter on: what `backward` recomputes. */
  private saved: Packed | null = null;
  private gradsPending = false;

  private constructor(engine: QwenEngine, ops: TrainOps, own: QwenTrainer['own'], chunkRows: number, stride: number) {
    this.engine = engine;
    this.ctx = engine.context;
    this.ops = ops;
    this.own = own;
    this.chunkRows = chunkRows;
    this.stride = stride;
    this.rec = new Recorder(this.ctx, 'qwen-trainer');
    const mem = engine.memory;
    this.adamTensors = engine.plan.entries
      .filter((e) => e.kind === 'adapter')
      .map((e) => ({
        param: mem.buffer(e.name),
        grad: mem.buffer(`grad.${e.name}`),
        m: mem.buffer(`adam.m.${e.name}`),
        v: mem.buffer(`adam.v.${e.name}`),
        n: e.shape[0] * e.shape[1],
      }));
  }

  /** Compiles the backward ops and allocates the trainer's small buffers for `engine` (planned with lora and training). */
  static async create(engine: QwenEngine, ops?: TrainOps): Promise<QwenTrainer> {
    const { lora, training, maxTokens: T, weights, kvCache } = engine.plan.options;
    if (!lora) throw new GpuShapeError('QwenTrainer', 'the engine was planned without LoRA: create it with options.lora');
    if (!training) throw new GpuShapeError('QwenTrainer', 'the engine was planned without training buffers: create it with options.training = { logitChunkRows }');
    const ctx = engine.context;
    const chunkRows = Math.min(training.logitChunkRows, T);
    const stride = Math.ceil(chunkRows / OFFSET_ALIGN_ELEMENTS) * OFFSET_ALIGN_ELEMENTS;
    const chunks = Math.ceil(T / chunkRows);
    const trainOps = ops ?? (await createTrainOps(ctx, matrixFormats(weights), kvCache));
    const tensorCount = engine.plan.entries.filter((e) => e.kind === 'adapter').length;
    const rowBytes = chunks * stride * 4;
    const sizes = { seqEnds: T * 4, targets: rowBytes, dlogprob: rowBytes, logprob: rowBytes, lse: rowBytes, norm: trainOps.optimizer.normBufferBytes(tensorCount) };
    const total = Object.values(sizes).reduce((a, b) => a + b, 0);
    const own = await allocateChecked(
      ctx,
      'trainer rows',
      total,
      () => ({
        seqEnds: createStorage(ctx, 'train.seqEnds', sizes.seqEnds),
        targets: createStorage(ctx, 'train.targets', sizes.targets),
        dlogprob: createStorage(ctx, 'train.dlogprob', sizes.dlogprob),
        logprob: createStorage(ctx, 'train.logprob', sizes.logprob),
        lse: createStorage(ctx, 'train.lse', sizes.lse),
        norm: createStorage(ctx, 'train.norm', sizes.norm),
      }),
      (o) => Object.values(o),
      'Lower the tokens per micro-batch (T).',
    );
    return new QwenTrainer(engine, trainOps, own, chunkRows, stride);
  }

  /**
   * Runs the batch forward and returns log p(target) of every scored position, sequence by sequence in the order
   * given. With the adapter on (default) it keeps the layer checkpoints for `backward`.
   */
  async forward(batch: TrainBatch, options: TrainForwardOptions = {}): Promise<Float32Array> {
    const adapter = options.adapterEnabled ?? true;
    if (adapter) this.requireAdapter();
    const packed = this.pack(batch);
    const engine = this.engine;
    const mem = engine.memory;
    const { hiddenSize: C, numLayers: L } = engine.model;
    const { T } = packed;
    const rec = this.rec;
    const before = rec.dispatchCount;
    const ids = Uint32Array.from(batch.sequences.flatMap((s) => s.ids));
    mem.writeRange('act.ids', ids);
    this.upload(packed);
    const view = (name: string, elements: number) => ({ buffer: mem.buffer(name), size: elements * 4 });

    engine.forwardOps.embedding.encode(rec, { out: view('act.x', T * C), ids: view('act.ids', T), table: mem.weight('model.embed_tokens.weight'), T });
    const layerOptions = this.layerOptions(T, adapter);
    for (let l = 0; l < L; l++) {
      if (adapter) rec.copy(mem.buffer('act.x'), 0, mem.buffer(`train.checkpoint.${l}`), 0, T * C * 4);
      engine.encodeLayer(rec, l, T, layerOptions);
    }
    if (adapter) rec.copy(mem.buffer('act.x'), 0, mem.buffer('grad.proj'), 0, T * C * 4);
    engine.forwardOps.rmsnorm.encode(rec, { out: view('act.xn', T * C), x: view('act.x', T * C), weight: mem.buffer('model.norm.weight'), M: T, C, eps: engine.model.rmsNormEps });
    this.forEachChunk(packed, (c, rows) => this.encodeChunkLogprobs(c, rows));
    rec.submit();
    this.lastDispatches.forward = rec.dispatchCount - before;
    if (adapter) this.saved = packed;
    const strided = await readF32(this.ctx, this.own.logprob, this.chunkCount(packed) * this.stride);
    const out = new Float32Array(packed.rows.length);
    for (let i = 0; i < out.length; i++) out[i] = strided[this.rowSlot(i)];
    return out;
  }

  /**
   * Backward of the last forward (with the adapter on) given d(loss)/d(logprob) per scored token, in `forward`'s
   * output order. Adds into the adapter's gradients; resolves when the GPU has finished.
   */
  async backward(dlogprob: Float32Array): Promise<void> {
    const packed = this.saved;
    if (!packed) throw new GpuShapeError('QwenTrainer.backward', 'no forward with the adapter on to differentiate (call forward first; an optimizer step invalidates it)');
    if (dlogprob.length !== packed.rows.length) throw new GpuShapeError('QwenTrainer.backward', `${dlogprob.length} gradients given for ${packed.rows.length} scored tokens`);
    this.gradsPending = true;
    if (packed.rows.length === 0) return; // nothing scored: no gradient
    const engine = this.engine;
    const mem = engine.memory;
    const m = engine.model;
    const { hiddenSize: C, numLayers: L } = m;
    const { T } = packed;
    const rec = this.rec;
    const before = rec.dispatchCount;
    const strided = new Float32Array(this.chunkCount(packed) * this.stride);
    for (let i = 0; i < dlogprob.length; i++) strided[this.rowSlot(i)] = dlogprob[i];
    writeBuffer(this.ctx, this.own.dlogprob, strided);
    this.upload(packed);
    mem.writeRange('grad.xn', new Float32Array(T * C)); // rows that are not scored get no gradient from the head
    const view = (name: string, elements: number) => ({ buffer: mem.buffer(name), size: elements * 4 });

    // LM head and final norm.
    const finalX = view('grad.proj', T * C);
    engine.forwardOps.rmsnorm.encode(rec, { out: view('act.xn', T * C), x: finalX, weight: mem.buffer('model.norm.weight'), M: T, C, eps: m.rmsNormEps });
    this.forEachChunk(packed, (c, rows) => {
      this.encodeChunkLogprobs(c, rows);
      const n = rows.length;
      const o = { offset: c * this.stride * 4, size: n * 4 };
      this.ops.logsoftmax.tokenLogprobBackward(rec, {
        logits: view('train.logitChunk', n * m.vocabSize),
        lse: { buffer: this.own.lse, ...o },
        targets: { buffer: this.own.targets, ...o },
        dlogprob: { buffer: this.own.dlogprob, ...o },
        M: n,
        V: m.vocabSize,
      });
      this.ops.matmulBackward.dx(rec, { dx: view('act.proj', n * C), dy: view('train.logitChunk', n * m.vocabSize), w: this.head(), M: n, accumulate: false, variant: headDxVariant(n, C) });
      this.copyRuns(rows, mem.buffer('act.proj'), mem.buffer('grad.xn'), 'scatter');
    });
    this.ops.rmsnormBackward.encode(rec, { dx: view('grad.x', T * C), dy: view('grad.xn', T * C), x: finalX, weight: mem.buffer('model.norm.weight'), M: T, C, eps: m.rmsNormEps, accumulate: false });
    rec.submit();

    const layerOptions: LayerOptions = { ...this.layerOptions(T, true), skipMlpResidual: true };
    for (let l = L - 1; l >= 0; l--) {
      rec.copy(mem.buffer(`train.checkpoint.${l}`), 0, mem.buffer('act.x'), 0, T * C * 4);
      engine.encodeLayer(rec, l, T, layerOptions);
      this.encodeLayerBackward(l, T);
      rec.submit();
    }
    await rec.finish();
    this.lastDispatches.backward = rec.dispatchCount - before;
  }

  /** grad_norm + fused AdamW over every adapter tensor; zeroes the gradients. Returns the norm before clipping. */
  async optimizerStep(settings: AdamWSettings): Promise<{ gradNorm: number }> {
    const rec = this.rec;
    const before = rec.dispatchCount;
    this.ops.optimizer.gradNorm(rec, { tensors: this.adamTensors, norm: this.own.norm });
    this.ops.optimizer.adamw(rec, { tensors: this.adamTensors, norm: this.own.norm, settings });
    rec.submit();
    this.lastDispatches.optimizer = rec.dispatchCount - before;
    this.saved = null; // the checkpoints were computed with the old adapter
    this.gradsPending = false;
    const norm = new Float32Array(await readBuffer(this.ctx, this.own.norm, 8));
    return { gradNorm: Math.sqrt(norm[0]) };
  }

  /** Zeroes every adapter gradient (a fresh accumulation without an optimizer step). */
  zeroGrads(): void {
    for (const t of this.adamTensors) writeBuffer(this.ctx, bufferOf(t.grad), new Float32Array(t.n));
    this.gradsPending = false;
  }

  /** Zeroes the AdamW moments (a new run on the same engine); the step count is the caller's. */
  resetOptimizer(): void {
    for (const t of this.adamTensors) {
      writeBuffer(this.ctx, bufferOf(t.m), new Float32Array(t.n));
      writeBuffer(this.ctx, bufferOf(t.v), new Float32Array(t.n));
    }
  }

  /** True between a backward and the next optimizer step or zeroGrads. */
  get hasGradients(): boolean {
    return this.gradsPending;
  }

  /** The adapter's accumulated gradients. */
  readLoraGrads(): Promise<LoraTensors> {
    return this.readPairs((name) => `grad.${name}`);
  }

  /** The adapter itself (the f32 masters the engine computes with), e.g. to save it. */
  readLora(): Promise<LoraTensors> {
    return this.readPairs((name) => name);
  }

  /** AdamW's first (m) and second (v) moments of every adapter tensor, laid out as `readLora`. */
  async readAdamMoments(): Promise<{ m: LoraTensors; v: LoraTensors }> {
    const [m, v] = await Promise.all([this.readPairs((name) => `adam.m.${name}`), this.readPairs((name) => `adam.v.${name}`)]);
    return { m, v };
  }

  /** Uploads AdamW moments (every planned pair of every layer; shapes checked against the plan). */
  loadAdamMoments(m: LoraTensors, v: LoraTensors): void {
    const { lora } = this.engine.plan.options;
    const mem = this.engine.memory;
    for (let l = 0; l < this.engine.model.numLayers; l++) {
      for (const p of lora?.targets ?? []) {
        const name = projectionPrefix(l, p);
        for (const [kind, tensors] of [['m', m], ['v', v]] as const) {
          const pair = tensors[l]?.[p];
          if (!pair) throw new GpuShapeError('QwenTrainer.loadAdamMoments', `layer ${l} has no ${p} ${kind} moments`);
          for (const [suffix, data] of [['lora_A', pair.a], ['lora_B', pair.b]] as const) {
            const e = mem.entry(`${name}.${suffix}`);
            mem.write(`adam.${kind}.${e.name}`, e.shape, data);
          }
        }
      }
    }
  }

  /** Drops the kept forward (the adapter changed under it, e.g. a new one was loaded): the next backward needs a new forward. */
  forgetForward(): void {
    this.saved = null;
  }

  destroy(): void {
    this.rec.destroy();
    for (const b of Object.values(this.own)) b.destroy();
  }

  // --- recording -------------------------------------------------------------------------------------------------

  /** Every sequence in its own slot from position 0; validates ids, lengths and scored positions. */
  private pack(batch: TrainBatch): Packed {
    const engine = this.engine;
    const { batch: B, context: S, maxTokens: maxT } = engine.plan.options;
    const V = engine.model.vocabSize;
    const where = 'QwenTrainer.forward';
    const seqs = batch.sequences;
    if (seqs.length === 0) throw new GpuShapeError(where, 'no sequences given');
    if (seqs.length > B) throw new GpuShapeError(where, `${seqs.length} sequences exceed the B = ${B} slots`);
    const T = seqs.reduce((n, s) => n + s.ids.length, 0);
    if (T > maxT) throw new GpuShapeError(where, `${T} tokens exceed the planned T = ${maxT} per micro-batch`);
    const positions = new Uint32Array(T);
    const slots = new Uint32Array(T);
    const seqEnds = new Uint32Array(T);
    const rows: number[] = [];
    const targetList: number[] = [];
    let start = 0;
    seqs.forEach((s, slot) => {
      const n = s.ids.length;
      if (n === 0) throw new GpuShapeError(where, `sequence ${slot} has no tokens`);
      if (n > S) throw new GpuShapeError(where, `sequence ${slot}: ${n} tokens exceed the context S = ${S}`);
      for (const id of s.ids) if (!Number.isInteger(id) || id < 0 || id >= V) throw new GpuShapeError(where, `token id ${id} (sequence ${slot}) is outside the vocabulary V = ${V}`);
      let last = -1;
      for (const t of s.scored) {
        if (!Number.isInteger(t) || t <= last || t >= n - 1) throw new GpuShapeError(where, `sequence ${slot}: scored positions must increase within 0..${n - 2} (got ${t})`);
        last = t;
        rows.push(start + t);
        targetList.push(s.ids[t + 1]);
      }
      for (let j = 0; j < n; j++) {
        positions[start + j] = j;
        slots[start + j] = slot;
        seqEnds[start + j] = start + n;
      }
      engine.reset(slot);
      start += n;
    });
    const packed: Packed = { T, positions, slots, seqEnds, rows, targets: new Uint32Array(0) };
    packed.targets = new Uint32Array(this.chunkCount(packed) * this.stride);
    targetList.forEach((id, i) => (packed.targets[this.rowSlot(i)] = id));
    return packed;
  }

  private chunkCount(packed: Packed): number {
    return Math.max(1, Math.ceil(packed.rows.length / this.chunkRows));
  }

  /** Index of scored row i in the per-chunk strided buffers. */
  private rowSlot(i: number): number {
    return Math.floor(i / this.chunkRows) * this.stride + (i % this.chunkRows);
  }

  private forEachChunk(packed: Packed, fn: (chunk: number, rows: number[]) => void): void {
    for (let c = 0; c * this.chunkRows < packed.rows.length; c++) fn(c, packed.rows.slice(c * this.chunkRows, (c + 1) * this.chunkRows));
  }

  /** Positions, slots, sequence ends and targets of a packed batch (re-sent by backward: a decode step may have run). */
  private upload(packed: Packed): void {
    const mem = this.engine.memory;
    mem.writeRange('act.positions', packed.positions);
    mem.writeRange('act.slots', packed.slots);
    writeBuffer(this.ctx, this.own.seqEnds, packed.seqEnds);
    writeBuffer(this.ctx, this.own.targets, packed.targets);
  }

  private layerOptions(T: number, adapter: boolean): LayerOptions {
    const mem = this.engine.memory;
    const R = this.engine.plan.options.lora?.rank ?? 0;
    return { lora: adapter, loraU: (p) => ({ buffer: mem.buffer(`act.loraU.${p}`), size: T * R * 4 }) };
  }

  private head(): PackedWeight {
    const mem = this.engine.memory;
    return mem.has('lm_head.weight') ? mem.weight('lm_head.weight') : mem.weight('model.embed_tokens.weight');
  }

  /** One copy per run of consecutive packed rows: act.xn rows → chunk rows 0..n ('gather') or back ('scatter'). */
  private copyRuns(rows: readonly number[], src: GPUBuffer, dst: GPUBuffer, dir: 'gather' | 'scatter'): void {
    const rowBytes = this.engine.model.hiddenSize * 4;
    for (let i = 0; i < rows.length; ) {
      let j = i + 1;
      while (j < rows.length && rows[j] === rows[j - 1] + 1) j++;
      const packedOffset = rows[i] * rowBytes;
      const chunkOffset = i * rowBytes;
      if (dir === 'gather') this.rec.copy(src, packedOffset, dst, chunkOffset, (j - i) * rowBytes);
      else this.rec.copy(src, chunkOffset, dst, packedOffset, (j - i) * rowBytes);
      i = j;
    }
  }

  /** Chunk c: gather the normed rows, logits (n, V), token_logprob → log-probs and lse at the chunk's offset. */
  private encodeChunkLogprobs(c: number, rows: readonly number[]): void {
    const engine = this.engine;
    const mem = engine.memory;
    const { hiddenSize: C, vocabSize: V } = engine.model;
    const n = rows.length;
    this.copyRuns(rows, mem.buffer('act.xn'), mem.buffer('act.proj'), 'gather');
    const logits = { buffer: mem.buffer('train.logitChunk'), size: n * V * 4 };
    engine.forwardOps.matmul.encode(this.rec, { out: logits, x: { buffer: mem.buffer('act.proj'), size: n * C * 4 }, w: this.head(), M: n });
    const o = { offset: c * this.stride * 4, size: n * 4 };
    this.ops.logsoftmax.tokenLogprob(this.rec, { logprob: { buffer: this.own.logprob, ...o }, lse: { buffer: this.own.lse, ...o }, logits, targets: { buffer: this.own.targets, ...o }, M: n, V });
  }

  /**
   * Layer l's backward after its recompute (act.* hold the layer's intermediates, act.x = x + attention, act.xn the
   * post-attention norm's output); grad.x holds d(layer output) and leaves holding d(layer input).
   */
  private encodeLayerBackward(l: number, T: number): void {
    const engine = this.engine;
    const mem = engine.memory;
    const m = engine.model;
    const { hiddenSize: C, intermediateSize: I, numHeads: H, numKvHeads: KVH, headDim: D, rmsNormEps: eps } = m;
    const { batch: B, context: S, lora } = engine.plan.options;
    const rec = this.rec;
    const ops = this.ops;
    const view = (name: string, elements: number) => ({ buffer: mem.buffer(name), size: elements * 4 });
    const prefix = `model.layers.${l}`;
    const checkpoint = view(`train.checkpoint.${l}`, T * C);
    const dx = view('grad.x', T * C);
    const dxn = view('grad.xn', T * C);

    /** d(input) (+)= dy·W, then the LoRA branch's gradients (adding into dA, dB and d(input)). */
    const linear = (p: Projection, dy: BufferArg, x: BufferArg, dInput: BufferArg, accumulate: boolean) => {
      const name = projectionPrefix(l, p);
      ops.matmulBackward.dx(rec, { dx: dInput, dy, w: mem.weight(`${name}.weight`), M: T, accumulate });
      if (!lora || !lora.targets.includes(p)) return;
      const [N, K] = projectionShape(m, p);
      ops.matmulBackward.lora(rec, {
        x,
        dy,
        u: view(`act.loraU.${p}`, T * lora.rank),
        a: mem.buffer(`${name}.lora_A`),
        b: mem.buffer(`${name}.lora_B`),
        da: mem.buffer(`grad.${name}.lora_A`),
        db: mem.buffer(`grad.${name}.lora_B`),
        du: view('grad.loraU', T * lora.rank),
        dx: dInput,
        M: T,
        N,
        K,
        rank: lora.rank,
        scale: engine.loraScaling,
      });
    };

    // MLP: x_out = x_mid + down(silu(gate(xn2)) · up(xn2)); grad.x = d(x_out) = d(down's output).
    const dmlp = view('grad.mlp', T * I);
    const dgate = view('grad.gate', T * I);
    const dup = view('grad.up', T * I);
    linear('down_proj', dx, view('act.mlp', T * I), dmlp, false);
    ops.swigluBackward.encode(rec, { dgate, dup, dact: dmlp, gate: view('act.gate', T * I), up: view('act.up', T * I), n: T * I });
    const xn = view('act.xn', T * C);
    linear('gate_proj', dgate, xn, dxn, false);
    linear('up_proj', dup, xn, dxn, true);
    ops.rmsnormBackward.encode(rec, { dx, dy: dxn, x: view('act.x', T * C), weight: mem.buffer(`${prefix}.post_attention_layernorm.weight`), M: T, C, eps, accumulate: true });

    // Attention: x_mid = x + o(attention(rope(norm(q(xn1))), rope(norm(k(xn1))), v(xn1))); grad.x = d(x_mid).
    const dattn = view('grad.attn', T * H * D);
    linear('o_proj', dx, view('act.attn', T * H * D), dattn, false);
    const dq = view('grad.q', T * H * D);
    const dk = view('grad.k', T * KVH * D);
    const dv = view('grad.v', T * KVH * D);
    ops.attentionBackward.encode(rec, {
      dq,
      dk,
      dv,
      dout: dattn,
      q: view('act.q', T * H * D),
      out: view('act.attn', T * H * D),
      lse: view('act.lse', T * H),
      kCache: mem.buffer(`kv.${l}.k`),
      vCache: mem.buffer(`kv.${l}.v`),
      slots: view('act.slots', T),
      positions: view('act.positions', T),
      seqEnds: { buffer: this.own.seqEnds, size: T * 4 },
      T,
      H,
      KVH,
      D,
      S,
      B,
      format: engine.plan.options.kvCache,
    });
    const positions = view('act.positions', T);
    const table = mem.buffer('rope.table');
    engine.forwardOps.rope.encode(rec, { x: dq, positions, table, T, NH: H, D, P: S, backward: true });
    engine.forwardOps.rope.encode(rec, { x: dk, positions, table, T, NH: KVH, D, P: S, backward: true });
    let dqIn: BufferArg = dq;
    let dkIn: BufferArg = dk;
    if (m.qkNorm) {
      dqIn = view('grad.qRaw', T * H * D);
      dkIn = view('grad.kRaw', T * KVH * D);
      ops.rmsnormBackward.encode(rec, { dx: dqIn, dy: dq, x: view('act.qRaw', T * H * D), weight: mem.buffer(`${prefix}.self_attn.q_norm.weight`), M: T * H, C: D, eps, accumulate: false });
      ops.rmsnormBackward.encode(rec, { dx: dkIn, dy: dk, x: view('act.kRaw', T * KVH * D), weight: mem.buffer(`${prefix}.self_attn.k_norm.weight`), M: T * KVH, C: D, eps, accumulate: false });
    }
    // xn1 = rmsnorm(x) again (act.xn held the post-attention norm's output until here).
    engine.forwardOps.rmsnorm.encode(rec, { out: xn, x: checkpoint, weight: mem.buffer(`${prefix}.input_layernorm.weight`), M: T, C, eps });
    linear('q_proj', dqIn, xn, dxn, false);
    linear('k_proj', dkIn, xn, dxn, true);
    linear('v_proj', dv, xn, dxn, true);
    ops.rmsnormBackward.encode(rec, { dx, dy: dxn, x: checkpoint, weight: mem.buffer(`${prefix}.input_layernorm.weight`), M: T, C, eps, accumulate: true });
  }

  private requireAdapter(): void {
    if (this.engine.loraScaling === 0) throw new GpuShapeError('QwenTrainer', 'no adapter loaded: call engine.loadLora(layers, scale) first');
  }

  private async readPairs(nameOf: (tensor: string) => string): Promise<LoraTensors> {
    const { lora } = this.engine.plan.options;
    const mem = this.engine.memory;
    const out: LoraTensors = [];
    for (let l = 0; l < this.engine.model.numLayers; l++) {
      const layer: LoraTensors[number] = {};
      for (const p of lora?.targets ?? []) {
        const name = projectionPrefix(l, p);
        const read = (suffix: string) => {
          const e = mem.entry(`${name}.${suffix}`);
          return readF32(this.ctx, mem.buffer(nameOf(e.name)), e.shape[0] * e.shape[1]);
        };
        const [a, b] = await Promise.all([read('lora_A'), read('lora_B')]);
        layer[p] = { a, b };
      }
      out.push(layer);
    }
    return out;
  }
}

/**
 * The LM head's dx reduces over V with only n × C outputs: the tiled kernel pads n up to 64-row tiles and runs
 * ⌈C/64⌉·⌈n/64⌉ workgroups, each looping over all of V; the simple kernel runs n·C invocations. Below a full tile of
 * rows the simple one does less work and spreads wider (measured on SwiftShader: see src/gpu/README "Training pass").
 */
function headDxVariant(n: number, C: number): MatmulDxVariant | undefined {
  // From a full tile up, the op's default: tiled on a GPU, rows on a CPU adapter (matmul-backward.ts).
  return n < DX_TILE || C < DX_TILE ? 'simple' : undefined;
}

function bufferOf(arg: BufferArg): GPUBuffer {
  return 'buffer' in arg ? arg.buffer : arg;
}
