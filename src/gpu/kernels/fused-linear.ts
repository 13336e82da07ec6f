/**
 * fused-linear op (see fused-linear.wgsl): one dispatch computes a group of 1–3 projections that share their input,
 * with an optional RMSNorm prologue, optional gathered input rows, each projection's LoRA inside the same pass, and
 * a store / residual-add / SwiGLU epilogue. The engine's fused forward (engine/fused-layer.ts) records its q/k/v,
 * o_proj + residual, gate/up + SwiGLU and down_proj + residual with it. Gathered rows and chunked weights serve an
 * LM head with the final norm folded in; the engine keeps its head unfused (rmsnorm + matmul), because each of the
 * head's V/64 workgroups would recompute the norm (2× slower per decode step on SwiftShader, measured).
 *
 * The WGSL of a spec is generated here: bindings (x, norm, rowIds, then per projection w, a, b, out) and the
 * per-projection functions, composed after the shared part in fused-linear.wgsl and each projection's weight reader
 * (quant.ts `wgslWeightReader`, so every weight format is dequantised inside). A spec's kernel is compiled by
 * `prepare` (async) before `encode` records it; `fusedBindingCount` says how many storage buffers a spec binds, which
 * the device limits (maxStorageBuffersPerShaderStage, 8 on every adapter) — the engine splits a group that would
 * exceed it.
 *
 * Shapes: x (rows of x, K) f32; rowIds (M) u32; norm weight (K) f32; W_p (N_p, K) packed; A_p (R, K), B_p (N_p, R)
 * f32; store out_p (M, ldo) with columns n0 … n0 + N_p (n0, ldo for a chunked single weight; else 0, N_p);
 * residual acc (M, N_0) read-modify-write; swiglu out (M, N_0) with N_0 = N_1.
 */
import { requireBytes } from '../buffers.ts';
import type { GpuContext } from '../device.ts';
import { GpuShapeError } from '../errors.ts';
import { composeWgsl, getKernel, type BindingSpec, type Kernel } from '../kernel.ts';
import { formatOf, type PackedWeight } from '../packed-weight.ts';
import { wgslWeightReader, type WeightFormat } from '../quant.ts';
import type { BufferArg, Recorder } from '../recorder.ts';
import { defineUniforms } from '../uniforms.ts';
import { WGSL_MATH, WGSL_WORKGROUP_SUM } from '../wgsl/common.ts';
import source from './fused-linear.wgsl?raw';

export const FUSED_LINEAR_PARAMS = defineUniforms('FusedLinearParams', {
  M: 'u32',
  K: 'u32',
  N0: 'u32',
  N1: 'u32',
  N2: 'u32',
  wg1: 'u32',
  wg2: 'u32',
  n0: 'u32',
  ldo: 'u32',
  rank: 'u32',
  lora_scale: 'f32',
  eps: 'f32',
});

/** Largest LoRA rank the kernel holds in workgroup memory (fused-linear.wgsl MAX_RANK). */
export const FUSED_MAX_RANK = 64;
/** Rows per workgroup (GM). */
const GM = 8;

export type FusedEpilogue = 'store' | 'residual' | 'swiglu';

/** What one compiled variant does: which prologue, how many projections (lora.length) with LoRA on which, which epilogue. */
export interface FusedLinearSpec {
  format: WeightFormat;
  norm: boolean;
  gather: boolean;
  lora: readonly boolean[];
  epilogue: FusedEpilogue;
}

/** Storage buffers a spec binds (the uniform aside). */
export function fusedBindingCount(spec: Omit<FusedLinearSpec, 'format'>): number {
  const perProjection = spec.lora.reduce((n, on) => n + 1 + (on ? 2 : 0) + (spec.epilogue === 'store' ? 1 : 0), 0);
  return 1 + (spec.norm ? 1 : 0) + (spec.gather ? 1 : 0) + perProjection + (spec.epilogue === 'store' ? 0 : 1);
}

function checkSpec(spec: Omit<FusedLinearSpec, 'format'>): void {
  const P = spec.lora.length;
  const ok = spec.epilogue === 'store' ? P >= 1 && P <= 3 : spec.epilogue === 'residual' ? P === 1 : P === 2;
  if (!ok) throw new GpuShapeError('fused-linear', `${P} projections cannot have a '${spec.epilogue}' epilogue (store: 1–3, residual: 1, swiglu: 2)`);
}

function specKey(spec: FusedLinearSpec): string {
  return `${spec.format}.${spec.norm ? 'norm' : 'plain'}.${spec.gather ? 'gather' : 'rows'}.${spec.lora.map((on) => (on ? 'L' : '-')).join('')}.${spec.epilogue}`;
}

/** The binding list of a spec, in binding order. */
function bindings(spec: FusedLinearSpec): BindingSpec[] {
  const list: BindingSpec[] = [{ binding: 0, kind: 'uniform', name: 'params' }];
  const add = (kind: BindingSpec['kind'], name: string) => list.push({ binding: list.length, kind, name });
  add('read-only-storage', 'x');
  if (spec.norm) add('read-only-storage', 'norm');
  if (spec.gather) add('read-only-storage', 'rowIds');
  spec.lora.forEach((on, p) => {
    add('read-only-storage', `w${p}`);
    if (on) {
      add('read-only-storage', `a${p}`);
      add('read-only-storage', `b${p}`);
    }
    if (spec.epilogue === 'store') add('storage', `out${p}`);
  });
  if (spec.epilogue === 'residual') add('storage', 'acc');
  if (spec.epilogue === 'swiglu') add('storage', 'out');
  return list;
}

/** WGSL variable names of the binding names (snake case as the shared source reads them). */
const WGSL_NAME: Record<string, string> = { x: 'x', norm: 'norm_w', rowIds: 'row_ids', acc: 'acc_out', out: 'out' };

function generated(spec: FusedLinearSpec): string {
  const lines: string[] = [];
  for (const b of bindings(spec)) {
    const name = WGSL_NAME[b.name] ?? b.name;
    if (b.kind === 'uniform') lines.push(`@group(0) @binding(0) var<uniform> params: FusedLinearParams;`);
    else lines.push(`@group(0) @binding(${b.binding}) var<storage, ${b.kind === 'storage' ? 'read_write' : 'read'}> ${name}: array<${b.name === 'rowIds' || b.name.startsWith('w') ? 'u32' : 'f32'}>;`);
  }
  lines.push(`fn x_row(m: u32) -> u32 { return ${spec.gather ? 'row_ids[m]' : 'm'}; }`);
  lines.push(`fn xin(i: u32, o: u32, k: u32) -> f32 { return ${spec.norm ? 'x[o + k] * inv_rms[i] * norm_w[k]' : 'x[o + k]'}; }`);
  const ldo = ['params.ldo', 'params.N1', 'params.N2'];
  const N = ['params.N0', 'params.N1', 'params.N2'];
  spec.lora.forEach((on, p) => {
    lines.push(wgslWeightReader(spec.format, `w_pair${p}`, `w${p}`, 'params.K'));
    lines.push(/* wgsl */ `
fn project${p}(n: u32, m0: u32, rows: u32, li: u32, live: bool) -> array<f32, GM> {
  var acc: array<f32, GM>;
  for (var k0 = 0u; k0 < params.K; k0 = k0 + KT) {
    load_tile(m0, rows, li, k0);
    if (live) {
      let half_t = min(KT, params.K - k0) / 2u;
      for (var pp = 0u; pp < half_t; pp = pp + 1u) {
        let wv = w_pair${p}(n, k0 / 2u + pp);
        for (var i = 0u; i < rows; i = i + 1u) {
          acc[i] = fma(xs[i * KT + 2u * pp], wv.x, acc[i]);
          acc[i] = fma(xs[i * KT + 2u * pp + 1u], wv.y, acc[i]);
        }
      }
    }
    workgroupBarrier();
  }
  return acc;
}`);
    if (on) {
      lines.push(/* wgsl */ `
fn lora_down${p}(m0: u32, rows: u32, li: u32, slot: u32) {
  var xo = row_offsets(m0, rows);
  for (var j = li; j < GM * params.rank; j = j + WG) {
    let i = j / params.rank;
    let r = j % params.rank;
    var acc = 0.0;
    if (i < rows) {
      for (var k = 0u; k < params.K; k = k + 1u) {
        acc = acc + xin(i, xo[i], k) * a${p}[r * params.K + k];
      }
    }
    lora_u[slot * GM * MAX_RANK + j] = acc;
  }
  workgroupBarrier();
}
fn lora_up${p}(v: f32, i: u32, n: u32, slot: u32) -> f32 {
  var l = 0.0;
  for (var r = 0u; r < params.rank; r = r + 1u) {
    l = l + lora_u[slot * GM * MAX_RANK + i * params.rank + r] * b${p}[(params.n0 + n) * params.rank + r];
  }
  return v + params.lora_scale * l;
}`);
    }
    const y = (acc: string, slot: number) => (on ? `lora_up${p}(${acc}, i, n, ${slot}u)` : acc);
    if (spec.epilogue === 'store') {
      lines.push(/* wgsl */ `
fn run${p}(wx: u32, m0: u32, rows: u32, li: u32) {
  ${on ? `lora_down${p}(m0, rows, li, 0u);` : ''}
  let n = wx * WG + li;
  var acc = project${p}(n, m0, rows, li, n < ${N[p]});
  if (n >= ${N[p]}) {
    return;
  }
  for (var i = 0u; i < rows; i = i + 1u) {
    out${p}[(m0 + i) * ${ldo[p]} + params.n0 + n] = ${y('acc[i]', 0)};
  }
}`);
    } else if (spec.epilogue === 'residual') {
      lines.push(/* wgsl */ `
fn run0(wx: u32, m0: u32, rows: u32, li: u32) {
  ${on ? 'lora_down0(m0, rows, li, 0u);' : ''}
  let n = wx * WG + li;
  var acc = project0(n, m0, rows, li, n < params.N0);
  if (n >= params.N0) {
    return;
  }
  for (var i = 0u; i < rows; i = i + 1u) {
    let o = (m0 + i) * params.N0 + n;
    acc_out[o] = acc_out[o] + ${y('acc[i]', 0)};
  }
}`);
    }
  });
  if (spec.epilogue === 'swiglu') {
    const g = spec.lora[0] ? 'lora_up0(g[i], i, n, 0u)' : 'g[i]';
    const u = spec.lora[1] ? 'lora_up1(u[i], i, n, 1u)' : 'u[i]';
    lines.push(/* wgsl */ `
fn run0(wx: u32, m0: u32, rows: u32, li: u32) {
  ${spec.lora[0] ? 'lora_down0(m0, rows, li, 0u);' : ''}
  ${spec.lora[1] ? 'lora_down1(m0, rows, li, 1u);' : ''}
  let n = wx * WG + li;
  var g = project0(n, m0, rows, li, n < params.N0);
  var u = project1(n, m0, rows, li, n < params.N0);
  if (n >= params.N0) {
    return;
  }
  for (var i = 0u; i < rows; i = i + 1u) {
    out[(m0 + i) * params.N0 + n] = silu(${g}) * ${u};
  }
}`);
  }
  const P = spec.epilogue === 'store' ? spec.lora.length : 1;
  const pick = P === 3 ? 'if (wid.x >= params.wg2) { run2(wid.x - params.wg2, m0, rows, li); } else if (wid.x >= params.wg1) { run1(wid.x - params.wg1, m0, rows, li); } else { run0(wid.x, m0, rows, li); }'
    : P === 2 ? 'if (wid.x >= params.wg1) { run1(wid.x - params.wg1, m0, rows, li); } else { run0(wid.x, m0, rows, li); }'
    : 'run0(wid.x, m0, rows, li);';
  lines.push(/* wgsl */ `
@compute @workgroup_size(64)
fn fused_linear(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
  let m0 = wid.y * GM;
  let rows = min(GM, params.M - m0);
  ${spec.norm ? 'norm_prologue(m0, rows, li);' : ''}
  ${pick}
}`);
  return lines.join('\n');
}

/** The full WGSL of a spec (exported for the checks' error messages and for reading). */
export function fusedLinearCode(spec: FusedLinearSpec): string {
  checkSpec(spec);
  return composeWgsl(WGSL_MATH, WGSL_WORKGROUP_SUM, FUSED_LINEAR_PARAMS.wgsl, source, generated(spec));
}

/** One projection of a group: its weight, its output (store epilogue), its LoRA pair (when on). */
export interface FusedProjection {
  w: PackedWeight;
  out?: BufferArg;
  lora?: { a: BufferArg; b: BufferArg } | null;
}

export interface FusedLinearArgs {
  /** Input rows (≥ M rows of K, or the gathered rows) f32. */
  x: BufferArg;
  M: number;
  norm?: { weight: BufferArg; eps: number } | null;
  /** (M) u32 rows of x to read (gather). */
  rowIds?: BufferArg | null;
  projections: readonly FusedProjection[];
  epilogue: FusedEpilogue;
  /** The residual's acc or the SwiGLU output (M, N_0). */
  out?: BufferArg;
  loraRank?: number;
  loraScale?: number;
}

export class FusedLinearOp {
  private readonly kernels = new Map<string, Kernel>();
  private constructor(private readonly ctx: GpuContext) {}

  static create(ctx: GpuContext): FusedLinearOp {
    return new FusedLinearOp(ctx);
  }

  /** Compiles the kernels of `specs` (once each); `encode` refuses a spec that was not prepared. */
  async prepare(specs: readonly FusedLinearSpec[]): Promise<void> {
    await Promise.all(
      specs.map(async (spec) => {
        const key = specKey(spec);
        if (this.kernels.has(key)) return;
        const count = fusedBindingCount(spec);
        const limit = this.ctx.limits.maxStorageBuffersPerShaderStage;
        if (count > limit) throw new GpuShapeError(`fused-linear ${key}`, `binds ${count} storage buffers, above this device's ${limit}: split the group`);
        this.kernels.set(key, await getKernel(this.ctx, { name: `fused-linear.${key}`, code: fusedLinearCode(spec), entryPoint: 'fused_linear', bindings: bindings(spec) }));
      }),
    );
  }

  /** The spec `args` needs (format of the first weight; every weight of a group must share it). */
  static specOf(args: FusedLinearArgs): FusedLinearSpec {
    const format = formatOf(args.projections[0].w);
    return { format, norm: !!args.norm, gather: !!args.rowIds, lora: args.projections.map((p) => !!p.lora), epilogue: args.epilogue };
  }

  /** Records the group: one dispatch, or one per row chunk for a single chunked weight (the LM head). */
  encode(rec: Recorder, args: FusedLinearArgs): void {
    const spec = FusedLinearOp.specOf(args);
    const key = specKey(spec);
    const name = `fused-linear(${args.projections.map((p) => p.w.label).join(', ')})`;
    const kernel = this.kernels.get(key);
    if (!kernel) throw new GpuShapeError(name, `variant ${key} was not prepared: call FusedLinearOp.prepare first`);
    const { M } = args;
    const K = args.projections[0].w.cols;
    if (!Number.isInteger(M) || M <= 0) throw new GpuShapeError(name, `M = ${M} must be a positive integer`);
    const rank = spec.lora.some((on) => on) ? args.loraRank ?? 0 : 0;
    if (rank > 0 && (!Number.isInteger(rank) || rank > FUSED_MAX_RANK)) throw new GpuShapeError(name, `LoRA rank ${rank} must be an integer in 1..${FUSED_MAX_RANK}`);
    if (spec.lora.some((on) => on) && rank === 0) throw new GpuShapeError(name, 'a LoRA pair is given without loraRank');
    for (const p of args.projections) {
      if (p.w.cols !== K) throw new GpuShapeError(name, `every projection of a group reads K = ${K} inputs; ${p.w.label} reads ${p.w.cols}`);
      if (formatOf(p.w) !== spec.format) throw new GpuShapeError(name, `every weight of a group is stored alike; ${p.w.label} is ${formatOf(p.w)}, not ${spec.format}`);
      if (p.lora) {
        requireBytes(name, 'lora.a', p.lora.a, rank * K * 4);
        requireBytes(name, 'lora.b', p.lora.b, p.w.rows * rank * 4);
      }
      if (spec.epilogue === 'store' && !p.out) throw new GpuShapeError(name, `projection ${p.w.label} has no output buffer`);
      if (spec.epilogue === 'store') requireBytes(name, 'out', p.out!, M * p.w.rows * 4);
      if (p.w.chunks.length > 1 && args.projections.length > 1) throw new GpuShapeError(name, `${p.w.label} is split in ${p.w.chunks.length} chunks: group it alone`);
    }
    if (spec.epilogue === 'swiglu' && args.projections[0].w.rows !== args.projections[1].w.rows) throw new GpuShapeError(name, 'gate and up must have as many rows');
    if (spec.epilogue !== 'store') {
      if (!args.out) throw new GpuShapeError(name, `the ${spec.epilogue} epilogue needs out`);
      requireBytes(name, 'out', args.out, M * args.projections[0].w.rows * 4);
    }
    if (args.norm) requireBytes(name, 'norm', args.norm.weight, K * 4);
    if (args.rowIds) requireBytes(name, 'rowIds', args.rowIds, M * 4);
    else requireBytes(name, 'x', args.x, M * K * 4);

    const buffers: Record<string, BufferArg> = { x: args.x };
    if (args.norm) buffers.norm = args.norm.weight;
    if (args.rowIds) buffers.rowIds = args.rowIds;
    args.projections.forEach((p, i) => {
      if (p.lora) {
        buffers[`a${i}`] = p.lora.a;
        buffers[`b${i}`] = p.lora.b;
      }
      if (spec.epilogue === 'store') buffers[`out${i}`] = p.out!;
    });
    if (args.out) {
      if (spec.epilogue === 'residual') buffers.acc = args.out;
      if (spec.epilogue === 'swiglu') buffers.out = args.out;
    }
    const base = { M, K, rank, lora_scale: args.loraScale ?? 0, eps: args.norm?.eps ?? 0 };
    const rowGroups = Math.ceil(M / GM);
    const wgs = (n: number) => Math.ceil(n / 64);
    if (args.projections.length === 1 || spec.epilogue === 'swiglu') {
      const w = args.projections[0].w;
      for (const chunk of w.chunks) {
        const chunkBuffers: Record<string, BufferArg> = { ...buffers, w0: chunk.buffer };
        if (spec.epilogue === 'swiglu') chunkBuffers.w1 = args.projections[1].w.chunks[0].buffer;
        const N1 = spec.epilogue === 'swiglu' ? args.projections[1].w.rows : 0;
        const uniforms = FUSED_LINEAR_PARAMS.pack({ ...base, N0: chunk.rows, N1, N2: 0, wg1: 0, wg2: 0, n0: chunk.row0, ldo: w.rows });
        rec.dispatch(kernel, uniforms, chunkBuffers, [wgs(chunk.rows), rowGroups, 1]);
      }
      return;
    }
    const Ns = args.projections.map((p) => p.w.rows);
    args.projections.forEach((p, i) => (buffers[`w${i}`] = p.w.chunks[0].buffer));
    const wg1 = wgs(Ns[0]);
    const wg2 = wg1 + (Ns.length > 1 ? wgs(Ns[1]) : 0);
    const total = wg2 + (Ns.length > 2 ? wgs(Ns[2]) : 0);
    const uniforms = FUSED_LINEAR_PARAMS.pack({ ...base, N0: Ns[0], N1: Ns[1] ?? 0, N2: Ns[2] ?? 0, wg1, wg2, n0: 0, ldo: Ns[0] });
    rec.dispatch(kernel, uniforms, buffers, [total, rowGroups, 1]);
  }
}
