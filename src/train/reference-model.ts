/**
 * A real `TrainableModel` on the float64 CPU reference (src/model/reference): sampling with a KV cache, scoring
 * with the full forward, the LoRA backward (`modelBackward`), and AdamW with global-norm clipping — so the trainer
 * runs for real in Node on a tiny model. Slow (naive loops, float64): meant for models of a few layers, widths of
 * tens and vocabularies of tens to hundreds.
 *
 * Sampling: softmax(logits / temperature), optionally cut to the smallest top-p set (renormalised); the reported
 * log-prob is that of the distribution actually sampled from; temperature 0 is greedy with log-prob 0. Scoring
 * (`forward`) takes the same temperature: log-softmax(logits / T), and `backward` differentiates that. The KL
 * reference policy is a frozen f64 copy of the adapter given to `setReferenceAdapter` (or the base model). Draws come
 * from a per-request generator seeded with the request's seed, so a request gives the same tokens every time. A
 * request whose prompt extends an earlier request's sequence continues that KV cache (rows are computed the same way
 * in any chunking, so the result does not depend on it); the optimizer step drops the caches.
 *
 * The optimiser step is the f64 reference of the GPU's (src/model/reference/optim.ts): global-norm clipping over all
 * adapter tensors together, then PyTorch's AdamW, gradients zeroed.
 */
import { createRng, type Rng } from '../data/rng.ts';
import type { ModelConfig } from '../model/config.ts';
import { createLoraAdapter, type LoraAdapter, type LoraConfig, type LoraTarget } from '../model/lora.ts';
import { modelBackward, zeroLoraGrads, type LoraGrads } from '../model/reference/backward.ts';
import { adamwStepRef, gradNormSquaredRef, type AdamTensorRef } from '../model/reference/optim.ts';
import { emptyCache, modelForward, toReferenceLora, toReferenceWeights, type ForwardResult, type LayerCache, type ReferenceLoraLayers, type ReferenceWeights } from '../model/reference/model.ts';
import type { KvCacheFormat } from '../gpu/kv-format.ts';
import type { Tokenizer } from '../model/tokenizer.ts';
import { PROJECTIONS, type Tensor, type TensorMap } from '../model/weights.ts';
import type { AdamWSettings, CheckpointableModel, ForwardOptions, GenerateOptions, GenerateRequest, OptimizerState, SampledGeneration, ScoredSequence } from './policy-model.ts';

/** KV caches kept between generate calls (one per live episode). */
const KV_POOL_SIZE = 256;

export interface ReferenceModelOptions {
  lora: LoraConfig;
  /** Seeds the adapter's A init. */
  seed: number;
  /** Default 1024. */
  contextTokens?: number;
  /** Non-zero B init (tests that need an adapter that already changes the model). */
  bInit?: (rng: Rng) => number;
  /**
   * The KV-cache storage to mirror (default 'f32': exact): 'f16' rounds keys and values as the engine's f16 cache
   * stores them, in generation and in scoring (scripts/kv-cache-seeds.ts compares the two on the toy task).
   */
  kvCache?: KvCacheFormat;
}

/** log-softmax of row `row` of (rows, V) logits / temperature at index `target`. */
function logSoftmaxAt(logits: Float64Array, row: number, V: number, target: number, temperature: number): number {
  let max = -Infinity;
  for (let v = 0; v < V; v++) max = Math.max(max, logits[row * V + v] / temperature);
  let sum = 0;
  for (let v = 0; v < V; v++) sum += Math.exp(logits[row * V + v] / temperature - max);
  return logits[row * V + target] / temperature - max - Math.log(sum);
}

/** The scoring temperature of `options` (default 1), checked. */
export function scoringTemperature(options: ForwardOptions): number {
  const t = options.temperature ?? 1;
  if (!(t > 0) || !Number.isFinite(t)) throw new RangeError(`forward: temperature must be a finite number > 0, got ${t}`);
  return t;
}

/** True when every B of the adapter is 0: the adapter leaves the base model unchanged (a fresh LoRA). */
export function adapterIsIdentity(adapter: LoraAdapter): boolean {
  return adapter.layers.every((layer) => Object.values(layer).every((pair) => pair === undefined || pair.b.data.every((x) => x === 0)));
}

/** One token from logits (V) at `temperature` / `topP`, with its log-prob under the distribution used. */
export function sampleToken(logits: Float64Array, temperature: number, topP: number, rng: Rng): { token: number; logProb: number } {
  const V = logits.length;
  if (temperature <= 0) {
    let best = 0;
    for (let v = 1; v < V; v++) if (logits[v] > logits[best]) best = v;
    return { token: best, logProb: 0 };
  }
  let max = -Infinity;
  for (let v = 0; v < V; v++) max = Math.max(max, logits[v] / temperature);
  const p = new Float64Array(V);
  let sum = 0;
  for (let v = 0; v < V; v++) sum += p[v] = Math.exp(logits[v] / temperature - max);
  for (let v = 0; v < V; v++) p[v] /= sum;
  let kept: number[] = Array.from({ length: V }, (_, v) => v);
  if (topP < 1) {
    kept.sort((a, b) => p[b] - p[a] || a - b);
    let cum = 0;
    let n = 0;
    while (n < V && cum < topP) cum += p[kept[n++]];
    kept = kept.slice(0, Math.max(1, n));
  }
  const mass = kept.reduce((a, v) => a + p[v], 0);
  let u = rng.next() * mass;
  let token = kept[kept.length - 1];
  for (const v of kept) {
    u -= p[v];
    if (u < 0) {
      token = v;
      break;
    }
  }
  return { token, logProb: Math.log(p[token] / mass) };
}

export class ReferenceTrainableModel implements CheckpointableModel {
  readonly tokenizer: Tokenizer;
  readonly contextTokens: number;
  readonly config: ModelConfig;
  /** The live adapter (its f64 arrays are the ones the optimiser updates). */
  readonly adapter: LoraAdapter;
  private readonly weights: ReferenceWeights;
  private readonly lora: ReferenceLoraLayers;
  /** Accumulated adapter gradients. */
  readonly grads: LoraGrads;
  private readonly moments: LoraGrads;
  private readonly moments2: LoraGrads;
  private kvPool: Array<{ caches: LayerCache[]; fed: number[] }> = [];
  private last: { batch: readonly ScoredSequence[]; results: ForwardResult[]; count: number; temperature: number } | null = null;
  /** The KL reference policy's adapter (a frozen copy), or null for the base model. */
  private referenceLora: ReferenceLoraLayers | null = null;
  /** Forward calls so far (for tests of the call pattern). */
  forwardCalls = 0;
  /** The KV-cache storage mirrored (ReferenceModelOptions.kvCache). */
  private readonly kvCache: KvCacheFormat;

  constructor(config: ModelConfig, tensors: TensorMap, tokenizer: Tokenizer, options: ReferenceModelOptions) {
    if (tokenizer.size > config.vocabSize) throw new RangeError(`tokenizer has ${tokenizer.size} ids but the model's vocabulary is ${config.vocabSize}`);
    this.config = config;
    this.tokenizer = tokenizer;
    this.contextTokens = options.contextTokens ?? 1024;
    this.kvCache = options.kvCache ?? 'f32';
    this.weights = toReferenceWeights(config, tensors);
    this.adapter = createLoraAdapter(config, options.lora, createRng(options.seed), options.bInit);
    this.lora = toReferenceLora(this.adapter);
    this.grads = zeroLoraGrads(this.lora);
    this.moments = zeroLoraGrads(this.lora);
    this.moments2 = zeroLoraGrads(this.lora);
  }

  /**
   * A KV cache whose fed tokens are a proper prefix of `prompt` (the longest), taken out of the pool, or a fresh one.
   * Multi-turn episodes continue their own sequence, so each turn prefills only the tool turn. The pool is emptied
   * whenever the adapter changes (optimizer step).
   */
  private takeCache(prompt: readonly number[]): { caches: LayerCache[]; fed: number[] } {
    let best = -1;
    this.kvPool.forEach((e, i) => {
      if (e.fed.length >= prompt.length || (best !== -1 && e.fed.length <= this.kvPool[best].fed.length)) return;
      for (let t = 0; t < e.fed.length; t++) if (e.fed[t] !== prompt[t]) return;
      best = i;
    });
    if (best === -1) return { caches: emptyCache(this.config, this.kvCache), fed: [] };
    return this.kvPool.splice(best, 1)[0];
  }

  /** One request after the other; `options.signal` is checked before every token (see `GenerateOptions`). */
  async generate(requests: readonly GenerateRequest[], options: GenerateOptions = {}): Promise<SampledGeneration[]> {
    const ends = new Set([this.tokenizer.special.imEnd, this.tokenizer.special.endOfText]);
    return requests.map((r) => {
      const rng = createRng(r.seed);
      const room = this.contextTokens - r.promptTokenIds.length;
      if (room < 1) throw new RangeError(`prompt of ${r.promptTokenIds.length} tokens fills the context of ${this.contextTokens}`);
      if (r.promptTokenIds.length === 0) throw new RangeError('generate: empty prompt');
      const limit = Math.min(r.maxNewTokens, room);
      const entry = this.takeCache(r.promptTokenIds);
      const fresh = r.promptTokenIds.slice(entry.fed.length);
      let logits = modelForward(this.config, this.weights, this.lora, entry.caches, fresh, true).logits;
      entry.fed.push(...fresh);
      const tokenIds: number[] = [];
      const logProbs: number[] = [];
      while (tokenIds.length < limit) {
        options.signal?.throwIfAborted();
        const s = sampleToken(logits, r.temperature, r.topP, rng);
        options.onTokens?.(1);
        tokenIds.push(s.token);
        logProbs.push(s.logProb);
        if (ends.has(s.token) || tokenIds.length >= limit) break;
        logits = modelForward(this.config, this.weights, this.lora, entry.caches, [s.token], true).logits;
        entry.fed.push(s.token);
      }
      this.kvPool.push(entry);
      if (this.kvPool.length > KV_POOL_SIZE) this.kvPool.shift();
      const last = tokenIds.at(-1);
      const shown = last !== undefined && ends.has(last) ? tokenIds.slice(0, -1) : tokenIds;
      return { tokenIds, logProbs, text: this.tokenizer.decode(shown) };
    });
  }

  /**
   * Float64 scores (the same values `forward` returns as f32), for finite-difference tests: log-softmax of
   * logits / temperature under the live adapter, the base (`adapter: false`) or the KL reference (`reference`).
   */
  score64(batch: readonly ScoredSequence[], options: ForwardOptions = {}): Float64Array {
    const live = (options.adapter ?? true) && !options.reference;
    const temperature = scoringTemperature(options);
    const lora = options.reference ? this.referenceLora : live ? this.lora : null;
    const V = this.config.vocabSize;
    const out: number[] = [];
    const results: ForwardResult[] = [];
    for (const seq of batch) {
      if (seq.lossMask.length !== seq.tokenIds.length) throw new RangeError('lossMask and tokenIds differ in length');
      const r = modelForward(this.config, this.weights, lora, emptyCache(this.config, this.kvCache), seq.tokenIds);
      results.push(r);
      for (let t = 1; t < seq.tokenIds.length; t++) if (seq.lossMask[t]) out.push(logSoftmaxAt(r.logits, t - 1, V, seq.tokenIds[t], temperature));
    }
    if (live) this.last = { batch, results, count: out.length, temperature };
    return Float64Array.from(out);
  }

  /** Freezes a copy of `adapter` as the KL reference (null: the base model); an adapter whose B are all 0 is the base. */
  setReferenceAdapter(adapter: LoraAdapter | null): void {
    if (adapter === null) {
      this.referenceLora = null;
      return;
    }
    const copy: LoraAdapter = { config: { ...adapter.config, targetModules: [...adapter.config.targetModules] }, layers: this.adapter.layers.map(() => ({})) };
    this.forEachPair('setReferenceAdapter', adapter.layers, (_, from, l, t) => {
      copy.layers[l][t] = { a: copyTensor(from.a.data, from.a.shape), b: copyTensor(from.b.data, from.b.shape) };
    });
    this.referenceLora = adapterIsIdentity(copy) ? null : toReferenceLora(copy);
  }

  async forward(batch: readonly ScoredSequence[], options: ForwardOptions = {}): Promise<Float32Array> {
    this.forwardCalls++;
    return Float32Array.from(this.score64(batch, options));
  }

  async backward(dlogprob: Float32Array | Float64Array): Promise<void> {
    const last = this.last;
    if (last === null) throw new Error('backward: no forward with the adapter on to differentiate');
    if (dlogprob.length !== last.count) throw new RangeError(`backward: ${dlogprob.length} gradients for ${last.count} scored tokens`);
    const V = this.config.vocabSize;
    // score = log-softmax(z / τ)[y]: d score / d z = (onehot(y) − softmax(z / τ)) / τ.
    const tau = last.temperature;
    let k = 0;
    last.batch.forEach((seq, i) => {
      const r = last.results[i];
      const T = seq.tokenIds.length;
      const dlogits = new Float64Array(T * V);
      let any = false;
      for (let t = 1; t < T; t++) {
        if (!seq.lossMask[t]) continue;
        const g = dlogprob[k++];
        if (g === 0) continue;
        any = true;
        const row = t - 1;
        let max = -Infinity;
        for (let v = 0; v < V; v++) max = Math.max(max, r.logits[row * V + v] / tau);
        let sum = 0;
        for (let v = 0; v < V; v++) sum += Math.exp(r.logits[row * V + v] / tau - max);
        for (let v = 0; v < V; v++) dlogits[row * V + v] -= (g * Math.exp(r.logits[row * V + v] / tau - max)) / sum / tau;
        dlogits[row * V + seq.tokenIds[t]] += g / tau;
      }
      if (any) modelBackward(this.config, this.weights, this.lora, this.grads, r, dlogits);
    });
    this.last = null;
  }

  private tensors(): AdamTensorRef[] {
    const out: AdamTensorRef[] = [];
    this.lora.forEach((layer, l) => {
      for (const p of PROJECTIONS) {
        const pair = layer[p];
        if (pair === undefined) continue;
        const g = this.grads[l][p]!;
        const m = this.moments[l][p]!;
        const v = this.moments2[l][p]!;
        out.push({ param: pair.a, grad: g.da, m: m.da, v: v.da }, { param: pair.b, grad: g.db, m: m.db, v: v.db });
      }
    });
    return out;
  }

  /** ‖g‖₂ of the accumulated gradient. */
  gradNorm(): number {
    return Math.sqrt(gradNormSquaredRef(this.tensors().map((t) => t.grad)));
  }

  async optimizerStep(s: AdamWSettings): Promise<{ gradNorm: number }> {
    const { normSquared } = adamwStepRef(this.tensors(), s);
    this.kvPool = [];
    return { gradNorm: Math.sqrt(normSquared) };
  }

  gpuBytes(): number | null {
    return null;
  }

  async readAdapter(): Promise<LoraAdapter> {
    return {
      config: { ...this.adapter.config, targetModules: [...this.adapter.config.targetModules] },
      layers: this.adapter.layers.map((layer) => mapPairs(layer, (pair) => ({ a: copyTensor(pair.a.data, pair.a.shape), b: copyTensor(pair.b.data, pair.b.shape) }))),
    };
  }

  /** Copies the values into the live arrays (the reference's LoRA reads those); the KV caches are dropped. */
  loadAdapter(adapter: LoraAdapter): void {
    this.forEachPair('loadAdapter', adapter.layers, (pair, from) => {
      pair.a.data.set(from.a.data);
      pair.b.data.set(from.b.data);
    });
    this.kvPool = [];
  }

  async readOptimizerState(): Promise<OptimizerState> {
    return {
      config: { ...this.adapter.config, targetModules: [...this.adapter.config.targetModules] },
      layers: this.adapter.layers.map((layer, l) =>
        mapPairs(layer, (pair, t) => {
          const m = this.moments[l][t]!;
          const v = this.moments2[l][t]!;
          return { a: { m: copyTensor(m.da, pair.a.shape), v: copyTensor(v.da, pair.a.shape) }, b: { m: copyTensor(m.db, pair.b.shape), v: copyTensor(v.db, pair.b.shape) } };
        }),
      ),
    };
  }

  loadOptimizerState(state: OptimizerState): void {
    const moments = (which: 'm' | 'v') => state.layers.map((layer) => mapPairs(layer, (x) => ({ a: x.a[which], b: x.b[which] })));
    const m = moments('m');
    const v = moments('v');
    this.forEachPair('loadOptimizerState', m, (_, from, l, t) => {
      this.moments[l][t]!.da.set(from.a.data);
      this.moments[l][t]!.db.set(from.b.data);
    });
    this.forEachPair('loadOptimizerState', v, (_, from, l, t) => {
      this.moments2[l][t]!.da.set(from.a.data);
      this.moments2[l][t]!.db.set(from.b.data);
    });
  }

  /** Visits every live pair with its counterpart in `layers`, after checking that both have the same pairs and sizes. */
  private forEachPair(
    what: string,
    layers: ReadonlyArray<Partial<Record<LoraTarget, { a: Tensor; b: Tensor }>>>,
    fn: (pair: { a: Tensor; b: Tensor }, from: { a: Tensor; b: Tensor }, layer: number, target: LoraTarget) => void,
  ): void {
    if (layers.length !== this.adapter.layers.length) throw new RangeError(`${what}: ${layers.length} layers, the model has ${this.adapter.layers.length}`);
    this.adapter.layers.forEach((layer, l) => {
      const targets = Object.keys(layer) as LoraTarget[];
      const given = Object.keys(layers[l]) as LoraTarget[];
      if (given.length !== targets.length) throw new RangeError(`${what}: layer ${l} has targets ${given.join(', ')}; the model has ${targets.join(', ')}`);
      for (const t of targets) {
        const from = layers[l][t];
        const pair = layer[t]!;
        if (!from || from.a.data.length !== pair.a.data.length || from.b.data.length !== pair.b.data.length) {
          throw new RangeError(`${what}: layer ${l} ${t} is missing or has other shapes than the model's (A ${pair.a.shape.join('×')}, B ${pair.b.shape.join('×')})`);
        }
      }
    });
    this.adapter.layers.forEach((layer, l) => {
      for (const t of Object.keys(layer) as LoraTarget[]) fn(layer[t]!, layers[l][t]!, l, t);
    });
  }
}

function copyTensor(data: ArrayLike<number>, shape: readonly number[]): Tensor {
  return { shape: [...shape], data: Float64Array.from(data) };
}

function mapPairs<P, Q>(layer: Partial<Record<LoraTarget, P>>, fn: (pair: P, target: LoraTarget) => Q): Partial<Record<LoraTarget, Q>> {
  const out: Partial<Record<LoraTarget, Q>> = {};
  for (const t of Object.keys(layer) as LoraTarget[]) out[t] = fn(layer[t]!, t);
  return out;
}
