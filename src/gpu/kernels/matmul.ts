/**
 * matmul op (see matmul.wgsl): a linear layer out = x·Wᵀ (+ b) (+ scale·(x·Aᵀ)·Bᵀ) with W packed (f16, q8 or q4,
 * quant.ts) in row chunks and a live LoRA adapter. Owns the uniform layout, the bind-group layouts (from the binding
 * lists below) and the dispatch sizes: `lora_down` once (when a LoRA is given), then one matmul dispatch per weight
 * chunk. Each variant is compiled once per weight format the op is created for (the format's `w_pair` reader is
 * composed in front of the shared source), so q8/q4 weights are dequantised inside the same kernels.
 */
import { requireBytes } from '../buffers.ts';
import type { GpuContext } from '../device.ts';
import { GpuShapeError } from '../errors.ts';
import { composeWgsl, getKernel, type BindingSpec, type Kernel } from '../kernel.ts';
import { formatOf, type PackedWeight } from '../packed-weight.ts';
import { wgslWeightReader, type WeightFormat } from '../quant.ts';
import type { BufferArg, Recorder } from '../recorder.ts';
import { defineUniforms } from '../uniforms.ts';
import { WGSL_GRID, grid1d } from '../wgsl/common.ts';
import source from './matmul.wgsl?raw';

export const MATMUL_PARAMS = defineUniforms('MatmulParams', {
  M: 'u32',
  N: 'u32',
  K: 'u32',
  ldx: 'u32',
  ldo: 'u32',
  n0: 'u32',
  has_bias: 'u32',
  rank: 'u32',
  lora_scale: 'f32',
});

/** The op's WGSL for weights stored in `format`. */
function code(format: WeightFormat): string {
  return composeWgsl(WGSL_GRID, MATMUL_PARAMS.wgsl, wgslWeightReader(format, 'w_pair', 'w', 'params.K'), source);
}

const MATMUL_BINDINGS: BindingSpec[] = [
  { binding: 0, kind: 'uniform', name: 'params' },
  { binding: 1, kind: 'read-only-storage', name: 'x' },
  { binding: 2, kind: 'read-only-storage', name: 'w' },
  { binding: 3, kind: 'read-only-storage', name: 'bias' },
  { binding: 4, kind: 'read-only-storage', name: 'loraU' },
  { binding: 5, kind: 'read-only-storage', name: 'loraB' },
  { binding: 6, kind: 'storage', name: 'out' },
];

const LORA_DOWN_BINDINGS: BindingSpec[] = [
  { binding: 0, kind: 'uniform', name: 'params' },
  { binding: 1, kind: 'read-only-storage', name: 'x' },
  { binding: 7, kind: 'read-only-storage', name: 'loraA' },
  { binding: 8, kind: 'storage', name: 'u' },
];

export type MatmulVariant = 'v0' | 'v1' | 'v2';

/**
 * Rows from which the tiled kernel (v1) is used instead of v2 when no variant is named. v1 computes 64-row tiles,
 * so below that it wastes work; SwiftShader runs v2 faster at every size (measured in src/gpu-tests/bench.ts).
 */
export const TILED_MIN_ROWS = 64;

/** A live LoRA branch: A (R, K), B (N_total, R) f32, and a scratch u (M, R) the op writes first. */
export interface LoraBranch {
  a: BufferArg;
  b: BufferArg;
  u: BufferArg;
  rank: number;
  scale: number;
}

export interface MatmulArgs {
  /** (M, ldo) f32; columns 0..N_total written. */
  out: BufferArg;
  /** (M, ldx) f32; the first K columns are the input. */
  x: BufferArg;
  /** (N_total, K) in any format the op was created for. */
  w: PackedWeight;
  M: number;
  /** Row strides in elements; default K and N_total. */
  ldx?: number;
  ldo?: number;
  /** (N_total) f32. */
  bias?: BufferArg | null;
  lora?: LoraBranch | null;
  /** Default: v2 below TILED_MIN_ROWS rows, v1 (tiled) from there; v0 is the simple variant. All give equal bits. */
  variant?: MatmulVariant;
}

const VARIANTS: readonly MatmulVariant[] = ['v0', 'v1', 'v2'];

export class MatmulOp {
  private constructor(
    private readonly kernels: Map<string, Kernel>,
    private readonly loraDown: Kernel,
  ) {}

  /** Compiles every variant for each of `formats` (default f16 only; the engine passes the formats it stores). */
  static async create(ctx: GpuContext, formats: readonly WeightFormat[] = ['f16']): Promise<MatmulOp> {
    const kernels = new Map<string, Kernel>();
    for (const format of new Set(formats)) {
      const suffix = format === 'f16' ? '' : `.${format}`;
      const compiled = await Promise.all(
        VARIANTS.map((variant) => getKernel(ctx, { name: `matmul.${variant}${suffix}`, code: code(format), entryPoint: `matmul_${variant}`, bindings: MATMUL_BINDINGS })),
      );
      VARIANTS.forEach((variant, i) => kernels.set(`${format}.${variant}`, compiled[i]));
    }
    const loraDown = await getKernel(ctx, { name: 'matmul.lora_down', code: code('f16'), entryPoint: 'lora_down', bindings: LORA_DOWN_BINDINGS });
    return new MatmulOp(kernels, loraDown);
  }

  /** Records lora_down (if any) and one matmul dispatch per weight chunk. */
  encode(rec: Recorder, args: MatmulArgs): void {
    const { w, M } = args;
    const N = w.rows;
    const K = w.cols;
    const ldx = args.ldx ?? K;
    const ldo = args.ldo ?? N;
    const name = `matmul(${w.label})`;
    if (!Number.isInteger(M) || M <= 0) throw new GpuShapeError(name, `M = ${M} must be a positive integer`);
    if (ldx < K || ldo < N) throw new GpuShapeError(name, `row strides ldx = ${ldx}, ldo = ${ldo} must be at least K = ${K}, N = ${N}`);
    requireBytes(name, 'x', args.x, ((M - 1) * ldx + K) * 4);
    requireBytes(name, 'out', args.out, ((M - 1) * ldo + N) * 4);
    if (args.bias) requireBytes(name, 'bias', args.bias, N * 4);
    const lora = args.lora ?? null;
    if (lora) {
      if (!Number.isInteger(lora.rank) || lora.rank <= 0) throw new GpuShapeError(name, `LoRA rank ${lora.rank} must be a positive integer`);
      requireBytes(name, 'lora.a', lora.a, lora.rank * K * 4);
      requireBytes(name, 'lora.b', lora.b, N * lora.rank * 4);
      requireBytes(name, 'lora.u', lora.u, M * lora.rank * 4);
    }
    const base = { M, K, ldx, ldo, has_bias: args.bias ? 1 : 0, rank: lora?.rank ?? 0, lora_scale: lora?.scale ?? 0 };
    if (lora) {
      rec.dispatch(this.loraDown, MATMUL_PARAMS.pack({ ...base, N, n0: 0 }), { x: args.x, loraA: lora.a, u: lora.u }, grid1d(Math.ceil((M * lora.rank) / 64)));
    }
    const variant = args.variant ?? (M >= TILED_MIN_ROWS ? 'v1' : 'v2');
    const kernel = this.kernels.get(`${formatOf(w)}.${variant}`);
    if (!kernel) throw new GpuShapeError(name, `weight format ${formatOf(w)} was not compiled: create the op with MatmulOp.create(ctx, ['${formatOf(w)}', ...])`);
    for (const chunk of w.chunks) {
      const uniforms = MATMUL_PARAMS.pack({ ...base, N: chunk.rows, n0: chunk.row0 });
      const buffers = { x: args.x, w: chunk.buffer, bias: args.bias ?? rec.dummy, loraU: lora?.u ?? rec.dummy, loraB: lora?.b ?? rec.dummy, out: args.out };
      const workgroups =
        variant === 'v0' ? grid1d(Math.ceil((M * chunk.rows) / 64)) : [Math.ceil(chunk.rows / 64), Math.ceil(M / (variant === 'v1' ? 64 : 8)), 1];
      rec.dispatch(kernel, uniforms, buffers, workgroups);
    }
  }
}
