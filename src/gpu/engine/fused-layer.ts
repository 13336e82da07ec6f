/**
 * The engine's fused decoder layer (issue 14): the same math as `QwenEngine.encodeLayer`, recorded in 7 dispatches
 * instead of ~18 (+ one per LoRA target):
 *
 *   1. q, k, v = rmsnorm(x)·W{q,k,v}ᵀ [+ LoRA]      fused-linear, norm prologue, 3 projections     → act.q, act.k, act.v
 *   2. q, k    = rope(q_norm(q)), rope(k_norm(k))     qk-norm-rope, in place (Qwen2: + q/k/v biases)
 *   3. kv.l[slot, pos] = k, v                         ops.kvcache.write
 *   4. attn = attention(q, kv.l)                      ops.attention                                   → act.attn
 *   5. x += attn·W_oᵀ [+ LoRA]                        fused-linear, residual epilogue                 → act.x
 *   6. mlp = silu(rmsnorm(x)·W_gateᵀ) · (rmsnorm(x)·W_upᵀ) [+ LoRA]   fused-linear, swiglu epilogue    → act.mlp
 *   7. x += mlp·W_downᵀ [+ LoRA]                      fused-linear, residual epilogue                 → act.x
 *
 * LoRA's u = x·Aᵀ is computed inside each fused-linear workgroup, so an adapter adds no dispatch as long as a group's
 * bindings fit the device (maxStorageBuffersPerShaderStage: 8 on every adapter, more on most). A group that would
 * bind more is split (`layerGroups`): with LoRA on q, k and v each projection takes 4 buffers, so q/k/v become
 * 3 dispatches at the default limit of 8 (2 at 12); gate/up + SwiGLU with LoRA on both needs 9, so below that it
 * falls back to gate, up (stored) and the separate swiglu op. `fusedLayerDispatches` counts the result.
 *
 * The fused kernels compute up to 8 rows per workgroup with each weight word read once per workgroup (the decode
 * shape); the engine uses them for forwards of fewer than TILED_MIN_ROWS tokens, where the unfused path uses the same
 * row-blocked matmul, and keeps the unfused layer (tiled matmuls) for long prefills. Eligibility (`fusedUnsupported`):
 * a model with both q/k norms and q/k/v biases, a LoRA rank above FUSED_MAX_RANK or a layer weight in several chunks
 * runs the unfused layer.
 */
import type { AllocatedPlan } from '../allocate.ts';
import { FUSED_MAX_RANK, fusedBindingCount, type FusedLinearSpec, type FusedProjection } from '../kernels/fused-linear.ts';
import type { KvCacheFormat } from '../kv-format.ts';
import { formatOf } from '../packed-weight.ts';
import type { PlanDims } from '../memory-plan.ts';
import { PROJECTIONS, projectionPrefix, type Projection } from '../../model/weights.ts';
import type { Recorder } from '../recorder.ts';
import type { EngineOps } from './ops.ts';

/** What the layer needs to know about the model. */
export interface FusedLayerModel extends PlanDims {
  rmsNormEps: number;
}

/** One layer's plan of projection groups: q/k/v groups, and whether gate/up take the SwiGLU epilogue. */
export interface LayerGroups {
  qkv: Projection[][];
  swiglu: boolean;
}

const QKV: readonly Projection[] = ['q_proj', 'k_proj', 'v_proj'];

/**
 * Groups q/k/v greedily in order so that each group's bindings fit `limit`; gate/up stay one SwiGLU dispatch when
 * they fit. `lora(p)`: whether projection p runs its LoRA branch.
 */
export function layerGroups(lora: (p: Projection) => boolean, limit: number): LayerGroups {
  const qkv: Projection[][] = [];
  let group: Projection[] = [];
  const fits = (g: Projection[]) => fusedBindingCount({ norm: true, gather: false, lora: g.map(lora), epilogue: 'store' }) <= limit;
  for (const p of QKV) {
    if (group.length > 0 && !fits([...group, p])) {
      qkv.push(group);
      group = [];
    }
    group.push(p);
  }
  qkv.push(group);
  const swiglu = fusedBindingCount({ norm: true, gather: false, lora: [lora('gate_proj'), lora('up_proj')], epilogue: 'swiglu' }) <= limit;
  return { qkv, swiglu };
}

/** Dispatches of one fused layer with these groups (the kv write and attention counted as one each). */
export function fusedLayerDispatches(groups: LayerGroups): number {
  return groups.qkv.length + 1 + 1 + 1 + 1 + (groups.swiglu ? 1 : 3) + 1;
}

/** Why the fused layer cannot run this model and plan, or null when it can. */
export function fusedUnsupported(model: FusedLayerModel, mem: AllocatedPlan, loraRank: number | null): string | null {
  if (model.qkNorm && model.qkvBias) return 'a model with both q/k norms and q/k/v biases';
  if (loraRank !== null && loraRank > FUSED_MAX_RANK) return `LoRA rank ${loraRank} above ${FUSED_MAX_RANK}`;
  if (model.headDim > 512 || model.headDim % 2 !== 0) return `head size ${model.headDim}`;
  for (let l = 0; l < model.numLayers; l++) {
    for (const p of PROJECTIONS) {
      const w = mem.weight(`${projectionPrefix(l, p)}.weight`);
      if (w.chunks.length > 1) return `${w.label} split in ${w.chunks.length} chunks`;
    }
    const formats = new Set(QKV.map((p) => formatOf(mem.weight(`${projectionPrefix(l, p)}.weight`))));
    if (formats.size > 1 || formatOf(mem.weight(`${projectionPrefix(l, 'gate_proj')}.weight`)) !== formatOf(mem.weight(`${projectionPrefix(l, 'up_proj')}.weight`))) {
      return `layer ${l}'s grouped projections stored in different formats`;
    }
  }
  return null;
}

/** Every fused-linear spec the layers record while LoRA runs on `loraTargets` (none: LoRA off), for `FusedLinearOp.prepare`. */
export function fusedSpecs(model: FusedLayerModel, mem: AllocatedPlan, loraTargets: readonly Projection[], limit: number): FusedLinearSpec[] {
  const specs = new Map<string, FusedLinearSpec>();
  const add = (s: FusedLinearSpec) => specs.set(JSON.stringify(s), s);
  const lora = (p: Projection) => loraTargets.includes(p);
  const groups = layerGroups(lora, limit);
  for (let l = 0; l < model.numLayers; l++) {
    const format = (p: Projection) => formatOf(mem.weight(`${projectionPrefix(l, p)}.weight`));
    for (const g of groups.qkv) add({ format: format(g[0]), norm: true, gather: false, lora: g.map(lora), epilogue: 'store' });
    add({ format: format('o_proj'), norm: false, gather: false, lora: [lora('o_proj')], epilogue: 'residual' });
    if (groups.swiglu) add({ format: format('gate_proj'), norm: true, gather: false, lora: [lora('gate_proj'), lora('up_proj')], epilogue: 'swiglu' });
    else for (const p of ['gate_proj', 'up_proj'] as const) add({ format: format(p), norm: true, gather: false, lora: [lora(p)], epilogue: 'store' });
    add({ format: format('down_proj'), norm: false, gather: false, lora: [lora('down_proj')], epilogue: 'residual' });
  }
  return [...specs.values()];
}

/** What `encodeFusedLayer` records with. */
export interface FusedLayerArgs {
  rec: Recorder;
  ops: EngineOps;
  mem: AllocatedPlan;
  model: FusedLayerModel;
  /** Planned batch B and context S. */
  B: number;
  S: number;
  /** KV-cache storage of the plan, passed through to the cache ops. */
  kvCache: KvCacheFormat;
  layer: number;
  T: number;
  /** LoRA: rank and scale, and which projections run their branch now (none when off). */
  loraRank: number;
  loraScale: number;
  lora: (p: Projection) => boolean;
  limit: number;
}

/** Records one fused decoder layer on act.* (see the header); act.x is read and updated in place. */
export function encodeFusedLayer(a: FusedLayerArgs): void {
  const { rec, ops, mem, model: m, T, layer: l } = a;
  const { hiddenSize: C, intermediateSize: I, numHeads: H, numKvHeads: KVH, headDim: D } = m;
  const view = (name: string, elements: number) => ({ buffer: mem.buffer(name), size: elements * 4 });
  const prefix = `model.layers.${l}`;
  const x = view('act.x', T * C);
  const outs: Partial<Record<Projection, { buffer: GPUBuffer; size: number }>> = {
    q_proj: view('act.q', T * H * D),
    k_proj: view('act.k', T * KVH * D),
    v_proj: view('act.v', T * KVH * D),
    gate_proj: view('act.gate', T * I),
    up_proj: view('act.up', T * I),
  };
  const projection = (p: Projection): FusedProjection => {
    const name = projectionPrefix(l, p);
    return { w: mem.weight(`${name}.weight`), out: outs[p], lora: a.lora(p) ? { a: mem.buffer(`${name}.lora_A`), b: mem.buffer(`${name}.lora_B`) } : null };
  };
  const lora = { loraRank: a.loraRank, loraScale: a.loraScale };
  const groups = layerGroups(a.lora, a.limit);
  const inputNorm = { weight: mem.buffer(`${prefix}.input_layernorm.weight`), eps: m.rmsNormEps };
  for (const g of groups.qkv) ops.fusedLinear.encode(rec, { x, M: T, norm: inputNorm, projections: g.map(projection), epilogue: 'store', ...lora });

  const q = outs.q_proj!;
  const k = outs.k_proj!;
  const v = outs.v_proj!;
  const bias = (p: Projection) => mem.buffer(`${projectionPrefix(l, p)}.bias`);
  const prologue = m.qkNorm
    ? { kind: 'norm' as const, q: mem.buffer(`${prefix}.self_attn.q_norm.weight`), k: mem.buffer(`${prefix}.self_attn.k_norm.weight`), eps: m.rmsNormEps }
    : m.qkvBias
      ? { kind: 'bias' as const, q: bias('q_proj'), k: bias('k_proj'), v: bias('v_proj') }
      : { kind: 'none' as const };
  const positions = view('act.positions', T);
  const slots = view('act.slots', T);
  ops.qkNormRope.encode(rec, { q, k, v, positions, table: mem.buffer('rope.table'), prologue, T, H, KVH, D, P: a.S });
  const kCache = mem.buffer(`kv.${l}.k`);
  const vCache = mem.buffer(`kv.${l}.v`);
  const { B, S, kvCache: format } = a;
  ops.kvcache.write(rec, { k, v, slots, positions, kCache, vCache, T, KVH, D, S, B, format });
  const attn = view('act.attn', T * H * D);
  ops.attention.encode(rec, { out: attn, lse: view('act.lse', T * H), q, kCache, vCache, slots, positions, T, H, KVH, D, S, B, format });
  ops.fusedLinear.encode(rec, { x: attn, M: T, projections: [projection('o_proj')], epilogue: 'residual', out: x, ...lora });

  const postNorm = { weight: mem.buffer(`${prefix}.post_attention_layernorm.weight`), eps: m.rmsNormEps };
  const mlp = view('act.mlp', T * I);
  if (groups.swiglu) {
    ops.fusedLinear.encode(rec, { x, M: T, norm: postNorm, projections: [projection('gate_proj'), projection('up_proj')], epilogue: 'swiglu', out: mlp, ...lora });
  } else {
    for (const p of ['gate_proj', 'up_proj'] as const) ops.fusedLinear.encode(rec, { x, M: T, norm: postNorm, projections: [projection(p)], epilogue: 'store', ...lora });
    ops.swiglu.encode(rec, { out: mlp, gate: outs.gate_proj!, up: outs.up_proj!, n: T * I });
  }
  ops.fusedLinear.encode(rec, { x: mlp, M: T, projections: [projection('down_proj')], epilogue: 'residual', out: x, ...lora });
}
