/**
 * matmul_backward op (see matmul-backward.wgsl): the gradients of a linear layer with a frozen packed base weight
 * and a live LoRA adapter, as the contract `MatmulBackwardOps` (engine/train-ops.ts) names them.
 *
 * - `dx`: dx (M, K) (+)= dy (M, N)·W (N, K), one dispatch per weight chunk (a chunk of rows of W is a slice of dy's
 *   columns); the first chunk writes or adds as asked, later chunks add. The tiled variant (64×64 tiles through
 *   workgroup memory, like matmul v1) is the default on a GPU, `rows` (8 rows × 2 columns per invocation, no
 *   workgroup memory, like matmul v2) on a CPU adapter (adapter-probe.ts), where the tiled kernel's barriers cost
 *   more than they save; `simple` (one invocation per element) is the reference. All three give the same bits. Compiled per weight format, reading W through quant.ts's `w_pair` exactly as the forward.
 * - `lora`: four small dispatches, dB += scale·dyᵀ·u, du = scale·dy·B, dA += duᵀ·x, dx += du·A (du before the last
 *   two; WebGPU orders dispatches in a pass). Each output element is owned by one invocation: no atomics.
 */
import { isSoftwareAdapter } from '../adapter-probe.ts';
import { requireBytes } from '../buffers.ts';
import type { GpuContext } from '../device.ts';
import type { LoraBackwardArgs, MatmulBackwardOps, MatmulDxArgs } from '../engine/train-ops.ts';
import { GpuShapeError } from '../errors.ts';
import { composeWgsl, getKernel, type BindingSpec, type Kernel } from '../kernel.ts';
import { formatOf } from '../packed-weight.ts';
import { wgslWeightReader, type WeightFormat } from '../quant.ts';
import type { BufferArg, Recorder } from '../recorder.ts';
import { defineUniforms } from '../uniforms.ts';
import { WGSL_GRID, grid1d } from '../wgsl/common.ts';
import source from './matmul-backward.wgsl?raw';

export const MATMUL_BACKWARD_PARAMS = defineUniforms('MatmulBackwardParams', {
  M: 'u32',
  N: 'u32',
  K: 'u32',
  n0: 'u32',
  ldy: 'u32',
  accumulate: 'u32',
  rank: 'u32',
  scale: 'f32',
});

/** The op's WGSL for weights stored in `format` (the LoRA entries read no weight; they use the f16 text). */
function code(format: WeightFormat): string {
  return composeWgsl(WGSL_GRID, MATMUL_BACKWARD_PARAMS.wgsl, wgslWeightReader(format, 'w_pair', 'w', 'params.K'), source);
}

const P = { binding: 0, kind: 'uniform', name: 'params' } as const;
const DX_BINDINGS: BindingSpec[] = [P, { binding: 1, kind: 'read-only-storage', name: 'dy' }, { binding: 2, kind: 'read-only-storage', name: 'w' }, { binding: 3, kind: 'storage', name: 'dx' }];

const LORA_ENTRIES = {
  lora_db: [P, { binding: 1, kind: 'read-only-storage', name: 'dy' }, { binding: 5, kind: 'read-only-storage', name: 'u' }, { binding: 9, kind: 'storage', name: 'db' }],
  lora_du: [P, { binding: 1, kind: 'read-only-storage', name: 'dy' }, { binding: 7, kind: 'read-only-storage', name: 'b' }, { binding: 10, kind: 'storage', name: 'du' }],
  lora_da: [P, { binding: 4, kind: 'read-only-storage', name: 'x' }, { binding: 10, kind: 'storage', name: 'du' }, { binding: 8, kind: 'storage', name: 'da' }],
  lora_dx: [P, { binding: 6, kind: 'read-only-storage', name: 'a' }, { binding: 10, kind: 'storage', name: 'du' }, { binding: 3, kind: 'storage', name: 'dx' }],
} satisfies Record<string, BindingSpec[]>;

type LoraEntry = keyof typeof LORA_ENTRIES;
const LORA_ORDER: readonly LoraEntry[] = ['lora_db', 'lora_du', 'lora_da', 'lora_dx'];

export type MatmulDxVariant = 'tiled' | 'simple' | 'rows';
const DX_VARIANTS: readonly MatmulDxVariant[] = ['tiled', 'simple', 'rows'];

/** Rows of dx per invocation of dx_rows (RB in the .wgsl). */
const DX_ROWS_BLOCK = 8;

/** Tile of dx_tiled (rows m × columns k). */
export const DX_TILE = 64;

export interface MatmulDxOptions extends MatmulDxArgs {
  /** Default: 'tiled' on a GPU, 'rows' on a CPU adapter; 'simple' is the one-invocation-per-element reference. */
  variant?: MatmulDxVariant;
}

export class MatmulBackwardOp implements MatmulBackwardOps {
  private constructor(
    private readonly dxKernels: Map<string, Kernel>,
    private readonly loraKernels: Record<LoraEntry, Kernel>,
    /** The dx variant used when none is named: 'tiled' on a GPU, 'rows' on a CPU adapter. */
    readonly defaultDxVariant: MatmulDxVariant,
  ) {}

  /** Compiles dx for each of `formats` (default f16 only) and the four LoRA entries. */
  static async create(ctx: GpuContext, formats: readonly WeightFormat[] = ['f16']): Promise<MatmulBackwardOp> {
    const dxKernels = new Map<string, Kernel>();
    for (const format of new Set(formats)) {
      const suffix = format === 'f16' ? '' : `.${format}`;
      const compiled = await Promise.all(
        DX_VARIANTS.map((variant) => getKernel(ctx, { name: `matmul_backward.dx_${variant}${suffix}`, code: code(format), entryPoint: `dx_${variant}`, bindings: DX_BINDINGS })),
      );
      DX_VARIANTS.forEach((variant, i) => dxKernels.set(`${format}.${variant}`, compiled[i]));
    }
    const lora = await Promise.all(LORA_ORDER.map((entry) => getKernel(ctx, { name: `matmul_backward.${entry}`, code: code('f16'), entryPoint: entry, bindings: LORA_ENTRIES[entry] })));
    const loraKernels = Object.fromEntries(LORA_ORDER.map((entry, i) => [entry, lora[i]])) as Record<LoraEntry, Kernel>;
    return new MatmulBackwardOp(dxKernels, loraKernels, isSoftwareAdapter(ctx.adapterInfo) ? 'rows' : 'tiled');
  }

  /** dx (M, K) (+)= dy (M, N)·W: one dispatch per weight chunk. */
  dx(rec: Recorder, args: MatmulDxOptions): void {
    const { w, M } = args;
    const N = w.rows;
    const K = w.cols;
    const name = `matmul_dx(${w.label})`;
    if (!Number.isInteger(M) || M <= 0) throw new GpuShapeError(name, `M = ${M} must be a positive integer`);
    requireBytes(name, 'dy', args.dy, M * N * 4);
    requireBytes(name, 'dx', args.dx, M * K * 4);
    if (K % 2 !== 0) throw new GpuShapeError(name, `K = ${K} must be even (weights are read in column pairs)`);
    const variant = args.variant ?? this.defaultDxVariant;
    const kernel = this.dxKernels.get(`${formatOf(w)}.${variant}`);
    if (!kernel) throw new GpuShapeError(name, `weight format ${formatOf(w)} was not compiled: create the op with MatmulBackwardOp.create(ctx, ['${formatOf(w)}', ...])`);
    const workgroups =
      variant === 'tiled'
        ? [Math.ceil(K / DX_TILE), Math.ceil(M / DX_TILE), 1]
        : variant === 'rows'
          ? grid1d(Math.ceil((Math.ceil(M / DX_ROWS_BLOCK) * (K / 2)) / 64))
          : grid1d(Math.ceil((M * K) / 64));
    w.chunks.forEach((chunk, i) => {
      const uniforms = MATMUL_BACKWARD_PARAMS.pack({ M, N: chunk.rows, K, n0: chunk.row0, ldy: N, accumulate: args.accumulate || i > 0 ? 1 : 0, rank: 0, scale: 0 });
      rec.dispatch(kernel, uniforms, { dy: args.dy, w: chunk.buffer, dx: args.dx }, workgroups);
    });
  }

  /** The LoRA branch's backward: dB, du, dA, dx in that order (see the contract). */
  lora(rec: Recorder, args: LoraBackwardArgs): void {
    const { M, N, K, rank: R, scale } = args;
    const name = 'matmul_backward.lora';
    for (const [what, v] of [['M', M], ['N', N], ['K', K], ['rank', R]] as const) {
      if (!Number.isInteger(v) || v <= 0) throw new GpuShapeError(name, `${what} = ${v} must be a positive integer`);
    }
    if (!Number.isFinite(scale)) throw new GpuShapeError(name, `scale = ${scale} must be finite`);
    const need: [string, BufferArg, number][] = [
      ['x', args.x, M * K],
      ['dy', args.dy, M * N],
      ['u', args.u, M * R],
      ['a', args.a, R * K],
      ['b', args.b, N * R],
      ['da', args.da, R * K],
      ['db', args.db, N * R],
      ['du', args.du, M * R],
      ['dx', args.dx, M * K],
    ];
    for (const [arg, buffer, elements] of need) requireBytes(name, arg, buffer, elements * 4);
    const uniforms = MATMUL_BACKWARD_PARAMS.pack({ M, N, K, n0: 0, ldy: N, accumulate: 1, rank: R, scale });
    // Each entry binds the buffers its layout names (the recorder ignores the others).
    const buffers = { x: args.x, dy: args.dy, u: args.u, a: args.a, b: args.b, da: args.da, db: args.db, du: args.du, dx: args.dx };
    rec.dispatch(this.loraKernels.lora_db, uniforms, buffers, grid1d(Math.ceil((N * R) / 64)));
    rec.dispatch(this.loraKernels.lora_du, uniforms, buffers, grid1d(Math.ceil((M * R) / 64)));
    rec.dispatch(this.loraKernels.lora_da, uniforms, buffers, grid1d(Math.ceil((R * K) / 64)));
    rec.dispatch(this.loraKernels.lora_dx, uniforms, buffers, grid1d(Math.ceil((M * K) / 64)));
  }
}
