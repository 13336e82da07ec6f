/**
 * The whole Qwen2/Qwen3 causal LM in float64, built from the reference ops: the oracle for the engine's logits,
 * its KV-cached decode, and (issue 5) its gradients. Per decoder layer, with T new tokens at absolute positions
 * p0..p0+T−1 and S = p0+T keys in the cache:
 *
 *   ln1  = rmsnorm(x, input_layernorm)                                   (T,C)
 *   q,k,v = linear(ln1, {q,k,v}_proj [+bias qwen2] [+LoRA])              (T,H·D) (T,KVH·D) (T,KVH·D)
 *   qn,kn = rmsnorm per head (q_norm, k_norm; qwen3) or copies             (T,H,D) (T,KVH,D)
 *   qr,kr = rope(qn, kn, positions)                                       kr, v appended to the cache (S,KVH,D)
 *   attn = causal GQA attention(qr, cache k, cache v)                      (T,H·D)
 *   x2   = x + linear(attn, o_proj [+LoRA])                               (T,C)
 *   ln2  = rmsnorm(x2, post_attention_layernorm)                          (T,C)
 *   act  = silu(linear(ln2, gate_proj)) · linear(ln2, up_proj)           (T,I)
 *   out  = x2 + linear(act, down_proj)                                    (T,C)
 * then logits = linear(rmsnorm(x_L, norm), lm_head or embed_tokens when tied)   (T,V).
 *
 * Every intermediate of a layer is kept in a `LayerActivations` record (named as above) so a backward pass can run
 * layer by layer in reverse from them, or recompute one layer from its input `x` alone (`layerForward` is pure in
 * its inputs plus the cache). LoRA's (T,R) intermediate x·Aᵀ is kept per projection for the same reason.
 */
import { roundToF16 } from '../../gpu/f16.ts';
import type { KvCacheFormat } from '../../gpu/kv-format.ts';
import { validateModelConfig, type ModelConfig } from '../config.ts';
import { checkBytesFit, DEFAULT_REFERENCE_BUDGET_BYTES } from '../model-budget.ts';
import { loraScale, type LoraAdapter } from '../lora.ts';
import { EMBED_TOKENS, FINAL_NORM, LM_HEAD, PROJECTIONS, checkWeights, layerTensorNames, parameterCount, type Projection, type TensorMap } from '../weights.ts';
import { addRef, attentionRef, embeddingRef, matmulRef, rmsnormRef, ropeRef, swigluRef } from './ops.ts';

/** One decoder layer's weights in float64, PyTorch shapes. */
export interface LayerWeights {
  inputLayernorm: Float64Array /* (C) */;
  qProj: Float64Array /* (H·D, C) */;
  kProj: Float64Array /* (KVH·D, C) */;
  vProj: Float64Array /* (KVH·D, C) */;
  oProj: Float64Array /* (C, H·D) */;
  qBias: Float64Array | null /* (H·D) qwen2 */;
  kBias: Float64Array | null /* (KVH·D) qwen2 */;
  vBias: Float64Array | null /* (KVH·D) qwen2 */;
  qNorm: Float64Array | null /* (D) qwen3 */;
  kNorm: Float64Array | null /* (D) qwen3 */;
  postAttentionLayernorm: Float64Array /* (C) */;
  gateProj: Float64Array /* (I, C) */;
  upProj: Float64Array /* (I, C) */;
  downProj: Float64Array /* (C, I) */;
}

export interface ReferenceWeights {
  embedTokens: Float64Array /* (V, C) */;
  layers: LayerWeights[];
  finalNorm: Float64Array /* (C) */;
  /** (V, C); the same array as embedTokens when tied. */
  lmHead: Float64Array;
}

/** One LoRA pair in float64 with its scale: y += scale·(x·Aᵀ)·Bᵀ. */
export interface ReferenceLora {
  a: Float64Array /* (R, in) */;
  b: Float64Array /* (out, R) */;
  scale: number;
  rank: number;
}

export type ReferenceLoraLayers = Array<Partial<Record<Projection, ReferenceLora>>>;

/** Float64 view of a tensor: a Float64Array is used as is (so a test can perturb it), f32 is widened once. */
function f64(data: Float32Array | Float64Array): Float64Array {
  return data instanceof Float64Array ? data : Float64Array.from(data);
}

/**
 * Checks the config's ranges (ModelConfigError) and the float64 copy's size against DEFAULT_REFERENCE_BUDGET_BYTES
 * (MemoryBudgetError) before anything is allocated, then the tensors against the config (WeightShapeError naming the
 * tensor), and widens them to float64.
 */
export function toReferenceWeights(config: ModelConfig, tensors: TensorMap): ReferenceWeights {
  validateModelConfig(config);
  checkBytesFit('The float64 reference weights', parameterCount(config) * 8, DEFAULT_REFERENCE_BUDGET_BYTES, 'The CPU reference is for small models; use the WebGPU engine for this one.');
  checkWeights(config, tensors);
  const get = (name: string): Float64Array => f64(tensors.get(name)!.data);
  const opt = (name: string, present: boolean): Float64Array | null => (present ? get(name) : null);
  const layers: LayerWeights[] = [];
  for (let i = 0; i < config.numLayers; i++) {
    const n = layerTensorNames(i);
    layers.push({
      inputLayernorm: get(n.inputLayernorm),
      qProj: get(n.qProj),
      kProj: get(n.kProj),
      vProj: get(n.vProj),
      oProj: get(n.oProj),
      qBias: opt(n.qBias, config.qkvBias),
      kBias: opt(n.kBias, config.qkvBias),
      vBias: opt(n.vBias, config.qkvBias),
      qNorm: opt(n.qNorm, config.qkNorm),
      kNorm: opt(n.kNorm, config.qkNorm),
      postAttentionLayernorm: get(n.postAttentionLayernorm),
      gateProj: get(n.gateProj),
      upProj: get(n.upProj),
      downProj: get(n.downProj),
    });
  }
  const embedTokens = get(EMBED_TOKENS);
  return { embedTokens, layers, finalNorm: get(FINAL_NORM), lmHead: config.tieWordEmbeddings ? embedTokens : get(LM_HEAD) };
}

export function toReferenceLora(adapter: LoraAdapter): ReferenceLoraLayers {
  const scale = loraScale(adapter.config);
  return adapter.layers.map((layer) => {
    const out: Partial<Record<Projection, ReferenceLora>> = {};
    for (const p of PROJECTIONS) {
      const pair = layer[p];
      if (pair !== undefined) out[p] = { a: f64(pair.a.data), b: f64(pair.b.data), scale, rank: adapter.config.rank };
    }
    return out;
  });
}

// --- linear with optional LoRA --------------------------------------------------------------------------------------

/**
 * out (M,N) = x·wᵀ + bias + scale·(x·Aᵀ)·Bᵀ; `mid` (M,R) receives x·Aᵀ when LoRA is on (kept for the backward).
 */
export function linearRef(
  out: Float64Array /* (M,N) */,
  mid: Float64Array | null /* (M,R) */,
  x: Float64Array /* (M,K) */,
  w: Float64Array /* (N,K) */,
  bias: Float64Array | null /* (N) */,
  lora: ReferenceLora | undefined,
  M: number,
  N: number,
  K: number,
): void {
  matmulRef(out, x, w, bias, M, N, K);
  if (lora === undefined) return;
  const R = lora.rank;
  const xa = mid ?? new Float64Array(M * R);
  matmulRef(xa, x, lora.a, null, M, R, K);
  for (let m = 0; m < M; m++) {
    for (let n = 0; n < N; n++) {
      let acc = 0;
      for (let r = 0; r < R; r++) acc += xa[m * R + r] * lora.b[n * R + r];
      out[m * N + n] += lora.scale * acc;
    }
  }
}

// --- one decoder layer ----------------------------------------------------------------------------------------------

/** Everything one layer computed for T tokens; names follow the header's equations. */
export interface LayerActivations {
  T: number;
  /** Absolute positions of the T tokens. */
  positions: number[];
  x: Float64Array /* (T,C) layer input (residual stream) */;
  ln1: Float64Array /* (T,C) */;
  q: Float64Array /* (T,H·D) projection output, before q_norm */;
  k: Float64Array /* (T,KVH·D) */;
  v: Float64Array /* (T,KVH·D) */;
  qn: Float64Array /* (T,H,D) after q_norm (qwen3) or a copy of q */;
  kn: Float64Array /* (T,KVH,D) */;
  qr: Float64Array /* (T,H,D) after RoPE */;
  kr: Float64Array /* (T,KVH,D) after RoPE (what the cache holds) */;
  attn: Float64Array /* (T,H·D) attention output */;
  x2: Float64Array /* (T,C) x + o_proj(attn) */;
  ln2: Float64Array /* (T,C) */;
  gate: Float64Array /* (T,I) */;
  up: Float64Array /* (T,I) */;
  act: Float64Array /* (T,I) silu(gate)·up */;
  out: Float64Array /* (T,C) x2 + down_proj(act): the next layer's x */;
  /** (T,R) x·Aᵀ of each LoRA-targeted projection. */
  loraMid: Partial<Record<Projection, Float64Array>>;
}

/**
 * A layer's key/value cache: rows 0..length−1 hold positions 0..length−1. With `f16`, keys and values are rounded to
 * f16 as they are stored, as the engine's f16 cache stores them (src/gpu/kv-format.ts).
 */
export interface LayerCache {
  k: Float64Array /* (capacity, KVH, D) */;
  v: Float64Array /* (capacity, KVH, D) */;
  length: number;
  f16?: boolean;
}

/**
 * Empty caches of every layer. `kvCache` is the engine cache's format to mirror: 'f32' (the default) keeps the
 * float64 values (the engine's f32 cache stores its f32 values exactly), 'f16' rounds them, so the oracle of an
 * engine with an f16 cache measures its arithmetic, not its storage.
 */
export function emptyCache(config: ModelConfig, kvCache: KvCacheFormat = 'f32'): LayerCache[] {
  return Array.from({ length: config.numLayers }, () => ({ k: new Float64Array(0), v: new Float64Array(0), length: 0, f16: kvCache === 'f16' }));
}

function appendToCache(cache: LayerCache, k: Float64Array, v: Float64Array, T: number, rowSize: number): void {
  const need = (cache.length + T) * rowSize;
  if (cache.k.length < need) {
    const grow = (old: Float64Array): Float64Array => {
      const next = new Float64Array(Math.max(need, 2 * old.length));
      next.set(old.subarray(0, cache.length * rowSize));
      return next;
    };
    cache.k = grow(cache.k);
    cache.v = grow(cache.v);
  }
  cache.k.set(k, cache.length * rowSize);
  cache.v.set(v, cache.length * rowSize);
  cache.length += T;
}

/**
 * Runs one decoder layer on T new tokens whose positions continue the cache (p0 = cache.length), appending their
 * keys and values to it. Returns every intermediate.
 */
export function layerForward(
  config: ModelConfig,
  w: LayerWeights,
  lora: Partial<Record<Projection, ReferenceLora>>,
  cache: LayerCache,
  x: Float64Array /* (T,C) */,
  T: number,
): LayerActivations {
  const { hiddenSize: C, intermediateSize: I, numHeads: H, numKvHeads: KVH, headDim: D, rmsNormEps: eps } = config;
  const p0 = cache.length;
  const positions = Array.from({ length: T }, (_, t) => p0 + t);
  const a: LayerActivations = {
    T,
    positions,
    x,
    ln1: new Float64Array(T * C),
    q: new Float64Array(T * H * D),
    k: new Float64Array(T * KVH * D),
    v: new Float64Array(T * KVH * D),
    qn: new Float64Array(T * H * D),
    kn: new Float64Array(T * KVH * D),
    qr: new Float64Array(0),
    kr: new Float64Array(0),
    attn: new Float64Array(T * H * D),
    x2: new Float64Array(T * C),
    ln2: new Float64Array(T * C),
    gate: new Float64Array(T * I),
    up: new Float64Array(T * I),
    act: new Float64Array(T * I),
    out: new Float64Array(T * C),
    loraMid: {},
  };
  const mid = (p: Projection): Float64Array | null => {
    const l = lora[p];
    if (l === undefined) return null;
    return (a.loraMid[p] = new Float64Array(T * l.rank));
  };

  rmsnormRef(a.ln1, x, w.inputLayernorm, T, C, eps);
  linearRef(a.q, mid('q_proj'), a.ln1, w.qProj, w.qBias, lora.q_proj, T, H * D, C);
  linearRef(a.k, mid('k_proj'), a.ln1, w.kProj, w.kBias, lora.k_proj, T, KVH * D, C);
  linearRef(a.v, mid('v_proj'), a.ln1, w.vProj, w.vBias, lora.v_proj, T, KVH * D, C);
  if (w.qNorm !== null && w.kNorm !== null) {
    rmsnormRef(a.qn, a.q, w.qNorm, T * H, D, eps);
    rmsnormRef(a.kn, a.k, w.kNorm, T * KVH, D, eps);
  } else {
    a.qn.set(a.q);
    a.kn.set(a.k);
  }
  a.qr = a.qn.slice();
  a.kr = a.kn.slice();
  ropeRef(a.qr, positions, T, H, D, config.ropeTheta);
  ropeRef(a.kr, positions, T, KVH, D, config.ropeTheta);
  if (cache.f16) {
    // Attention reads the stored keys and values, its own tokens' included; the backward (which reads a.kr and a.v)
    // then gives the gradients of the stored values, passed straight through the rounding, as the engine's does.
    a.kr = roundToF16(a.kr);
    a.v = roundToF16(a.v);
  }
  appendToCache(cache, a.kr, a.v, T, KVH * D);
  attentionRef(a.attn, a.qr, cache.k, cache.v, positions, T, cache.length, H, KVH, D);

  const o = new Float64Array(T * C);
  linearRef(o, mid('o_proj'), a.attn, w.oProj, null, lora.o_proj, T, C, H * D);
  addRef(a.x2, x, o, T * C);
  rmsnormRef(a.ln2, a.x2, w.postAttentionLayernorm, T, C, eps);
  linearRef(a.gate, mid('gate_proj'), a.ln2, w.gateProj, null, lora.gate_proj, T, I, C);
  linearRef(a.up, mid('up_proj'), a.ln2, w.upProj, null, lora.up_proj, T, I, C);
  swigluRef(a.act, a.gate, a.up, T, I);
  const down = new Float64Array(T * C);
  linearRef(down, mid('down_proj'), a.act, w.downProj, null, lora.down_proj, T, C, I);
  addRef(a.out, a.x2, down, T * C);
  return a;
}

// --- whole model ----------------------------------------------------------------------------------------------------

export interface ForwardResult {
  /** (T,V) logits of every new position (or of the last only, when asked: then (1,V)). */
  logits: Float64Array;
  embedded: Float64Array /* (T,C) */;
  layers: LayerActivations[];
  finalNormed: Float64Array /* (T,C) */;
}

function checkIds(config: ModelConfig, ids: ArrayLike<number>): void {
  if (ids.length === 0) throw new RangeError('reference model: no token ids given');
  for (let t = 0; t < ids.length; t++) {
    const id = ids[t];
    if (!Number.isInteger(id) || id < 0 || id >= config.vocabSize) {
      throw new RangeError(`reference model: token id ${id} at position ${t} is outside the vocabulary (V=${config.vocabSize})`);
    }
  }
}

/** Runs T new tokens through every layer, continuing `caches`. `lastOnly` computes the LM head on the last row only. */
export function modelForward(
  config: ModelConfig,
  weights: ReferenceWeights,
  lora: ReferenceLoraLayers | null,
  caches: LayerCache[],
  ids: ArrayLike<number> /* (T) */,
  lastOnly = false,
): ForwardResult {
  checkIds(config, ids);
  const { hiddenSize: C, vocabSize: V } = config;
  const T = ids.length;
  const embedded = new Float64Array(T * C);
  embeddingRef(embedded, weights.embedTokens, ids, T, C);
  const layers: LayerActivations[] = [];
  let x: Float64Array = embedded;
  for (let l = 0; l < config.numLayers; l++) {
    const acts = layerForward(config, weights.layers[l], lora?.[l] ?? {}, caches[l], x, T);
    layers.push(acts);
    x = acts.out;
  }
  const finalNormed = new Float64Array(T * C);
  rmsnormRef(finalNormed, x, weights.finalNorm, T, C, config.rmsNormEps);
  const rows = lastOnly ? 1 : T;
  const head = lastOnly ? finalNormed.subarray((T - 1) * C) : finalNormed;
  const logits = new Float64Array(rows * V);
  matmulRef(logits, head, weights.lmHead, null, rows, V, C);
  return { logits, embedded, layers, finalNormed };
}

function prepare(config: ModelConfig, weights: ReferenceWeights | TensorMap): ReferenceWeights {
  return weights instanceof Map ? toReferenceWeights(config, weights as TensorMap) : (weights as ReferenceWeights);
}

/** Logits (T,V) of every position of `ids`, from position 0 with no cache. */
export function referenceLogits(
  config: ModelConfig,
  weights: ReferenceWeights | TensorMap,
  ids: ArrayLike<number>,
  lora?: LoraAdapter | ReferenceLoraLayers,
): Float64Array {
  const w = prepare(config, weights);
  const l = lora === undefined ? null : Array.isArray(lora) ? lora : toReferenceLora(lora);
  return modelForward(config, w, l, emptyCache(config), ids).logits;
}

/** A KV-cached sequence: the reference of the engine's prefill and decode. */
export interface ReferenceSession {
  /** Starts a new sequence with `ids` (clearing the cache); returns the last position's logits (V). */
  prefill(ids: ArrayLike<number>): Float64Array;
  /** Appends several tokens to the sequence (a tool result, a new turn); returns the last position's logits (V). */
  append(ids: ArrayLike<number>): Float64Array;
  /** Appends one token; returns its logits (V). */
  decode(id: number): Float64Array;
  /** Tokens in the cache. */
  readonly length: number;
}

export function createReferenceSession(
  config: ModelConfig,
  weights: ReferenceWeights | TensorMap,
  lora?: LoraAdapter | ReferenceLoraLayers,
  kvCache: KvCacheFormat = 'f32',
): ReferenceSession {
  const w = prepare(config, weights);
  const l = lora === undefined ? null : Array.isArray(lora) ? lora : toReferenceLora(lora);
  let caches = emptyCache(config, kvCache);
  const append = (ids: ArrayLike<number>): Float64Array => modelForward(config, w, l, caches, ids, true).logits;
  return {
    prefill(ids) {
      caches = emptyCache(config, kvCache);
      return append(ids);
    },
    append,
    decode(id) {
      return append([id]);
    },
    get length() {
      return caches[0]?.length ?? 0;
    },
  };
}
