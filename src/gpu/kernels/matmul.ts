/**
 * matmul op (see matmul.wgsl): a linear layer out = x·Wᵀ (+ b) (+ scale·(x·Aᵀ)·Bᵀ) with W packed (f16, q8 or q4,
 * quant.ts) in row chunks and a live LoRA adapter. Owns the uniform layout, the bind-group layouts (from the binding
 * lists below) and the dispatch sizes: `lora_down` once (when a LoRA is given), then one matmul dispatch per weight
 * chunk. Each variant is compiled once per weight format the op is created for (the format's `w_pair` reader is
 * composed in front of the shared source), so q8/q4 weights are dequantised inside the same kernels.
 * On a device with `subgroups` (ctx.features.subgroups) the decode variant v3 (matmul-subgroups.wgsl: K split over a
 * workgroup, subgroup sums) is compiled too and replaces v2 for few rows on a GPU; without the feature, and on a CPU
 * adapter (SwiftShader, where v3 measured 1.6–5× slower than v2: one thread per column already fills a CPU), v2 stays.
 * The variant for many rows is chosen by the same rule: the tiled v1 on a GPU, v2 on a CPU adapter, where the
 * workgroup-memory tiles and barriers of v1 cost more than they save (v1 measured 2–3.5× slower than v0 and v2 at
 * the training shapes M = 64…1024, N, K = 64…512, and at 512³; v0 and v2 within 25% of each other either way).
 */
import { isSoftwareAdapter } from '../adapter-probe.ts';
import { requireBytes } from '../buffers.ts';
import type { GpuContext } from '../device.ts';
import { GpuShapeError } from '../errors.ts';
import { composeWgsl, getKernel, type BindingSpec, type Kernel } from '../kernel.ts';
import { formatOf, type PackedWeight } from '../packed-weight.ts';
import { wgslWeightReader, type WeightFormat } from '../quant.ts';
import type { BufferArg, Recorder } from '../recorder.ts';
import { defineUniforms } from '../uniforms.ts';
import { WGSL_GRID, grid1d } from '../wgsl/common.ts';
import commonSource from './matmul-common.wgsl?raw';
import source from './matmul.wgsl?raw';
import x4Source from './matmul-x4.wgsl?raw';
import subgroupSource from './matmul-subgroups.wgsl?raw';
import f16Source from './matmul-f16.wgsl?raw';

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

/** The bindings, epilogue and weight reader every matmul module starts with, for weights stored in `format`. */
const common = (format: WeightFormat): string[] => [WGSL_GRID, MATMUL_PARAMS.wgsl, wgslWeightReader(format, 'w_pair', 'w', 'params.K'), commonSource];

/** The op's WGSL for weights stored in `format`; with `subgroups`, the module that also holds matmul_v3. */
function code(format: WeightFormat, subgroups = false): string {
  const base = [...common(format), source];
  return subgroups ? composeWgsl('enable subgroups;', ...base, subgroupSource) : composeWgsl(...base);
}

/**
 * Whether v2 reads x four values at a time (matmul-x4.wgsl) for this K, row stride and binding offset of x: K and ldx
 * multiples of 4 and the offset of 16 bytes, so every row of x starts on a vec4 boundary.
 */
export function v2ReadsQuads(K: number, ldx: number, xOffsetBytes = 0): boolean {
  return K % 4 === 0 && ldx % 4 === 0 && xOffsetBytes % 16 === 0;
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

export type MatmulVariant = 'v0' | 'v1' | 'v2' | 'v3' | 'v2h';

/**
 * Rows from which the tiled kernel (v1) is used instead of the decode variant when no variant is named, on a GPU.
 * v1 computes 64-row tiles, so below that it wastes work. A CPU adapter never uses v1 by default: SwiftShader runs
 * v2 faster at every size (measured with src/gpu-tests/bench.ts `timeMatmul`; see defaultMatmulVariants).
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
  /**
   * v2 only: read x four values at a time where `v2ReadsQuads(K, ldx, offset of x)` (the default, same bits); false reads them
   * one at a time (the benches and the matmul check compare the two).
   */
  quads?: boolean;
  /**
   * Default: below TILED_MIN_ROWS rows v3 on a GPU with subgroups, else v2; from there v1 (tiled) on a GPU and v2
   * on a CPU adapter (defaultMatmulVariants); v0 is the simple variant. v0, v1 and v2 give equal bits; v3 sums in
   * another order (equal to rounding).
   */
  variant?: MatmulVariant;
}

const VARIANTS: readonly MatmulVariant[] = ['v0', 'v1', 'v2'];

/**
 * The variants used when none is named, from the adapter alone (a rule, not a timing at creation: a measurement on
 * a CPU adapter shared with other work is noisy, and the gap it would find is 2–3×, which the rule already knows):
 * `decode` for fewer than TILED_MIN_ROWS rows (v3 on a GPU with subgroups, else v2), `rows` from there (the tiled
 * v1 on a GPU, v2 on a CPU adapter).
 */
export function defaultMatmulVariants(info: GPUAdapterInfo, subgroups: boolean): { decode: MatmulVariant; rows: MatmulVariant } {
  const cpu = isSoftwareAdapter(info);
  return { decode: subgroups && !cpu ? 'v3' : 'v2', rows: cpu ? 'v2' : 'v1' };
}

export class MatmulOp {
  private constructor(
    private readonly kernels: Map<string, Kernel>,
    private readonly loraDown: Kernel,
    /** v3 was compiled (the device has subgroups). */
    readonly hasSubgroups: boolean,
    /** The variant used for fewer than TILED_MIN_ROWS rows when none is named. */
    readonly decodeVariant: MatmulVariant,
    /** The variant used for TILED_MIN_ROWS rows or more when none is named: v1 on a GPU, v2 on a CPU adapter. */
    readonly rowsVariant: MatmulVariant,
  ) {}

  /** Compiles every variant for each of `formats` (default f16 only; the engine passes the formats it stores). */
  static async create(ctx: GpuContext, formats: readonly WeightFormat[] = ['f16']): Promise<MatmulOp> {
    const kernels = new Map<string, Kernel>();
    for (const format of new Set(formats)) {
      const suffix = format === 'f16' ? '' : `.${format}`;
      const [x4, ...compiled] = await Promise.all([
        getKernel(ctx, { name: `matmul.v2_x4${suffix}`, code: composeWgsl(...common(format), x4Source), entryPoint: 'matmul_v2_x4', bindings: MATMUL_BINDINGS }),
        ...VARIANTS.map((variant) => getKernel(ctx, { name: `matmul.${variant}${suffix}`, code: code(format), entryPoint: `matmul_${variant}`, bindings: MATMUL_BINDINGS })),
      ]);
      VARIANTS.forEach((variant, i) => kernels.set(`${format}.${variant}`, compiled[i]));
      kernels.set(`${format}.v2.x4`, x4);
      // f16 products (matmul-f16.wgsl): f16-stored weights on devices with shader-f16, used only when named.
      if (format === 'f16' && ctx.features.shaderF16) {
        const f16Code = composeWgsl('enable f16;', ...common(format), source, f16Source);
        kernels.set('f16.v2h', await getKernel(ctx, { name: 'matmul.v2h', code: f16Code, entryPoint: 'matmul_v2h', bindings: MATMUL_BINDINGS }));
      }
      if (ctx.features.subgroups) {
        kernels.set(`${format}.v3`, await getKernel(ctx, { name: `matmul.v3${suffix}`, code: code(format, true), entryPoint: 'matmul_v3', bindings: MATMUL_BINDINGS }));
      }
    }
    const loraDown = await getKernel(ctx, { name: 'matmul.lora_down', code: code('f16'), entryPoint: 'lora_down', bindings: LORA_DOWN_BINDINGS });
    const defaults = defaultMatmulVariants(ctx.adapterInfo, ctx.features.subgroups);
    return new MatmulOp(kernels, loraDown, ctx.features.subgroups, defaults.decode, defaults.rows);
  }

  /** Whether `variant` was compiled for `format` on this device (v3 needs subgroups; v2h f16 weights and shader-f16). */
  compiled(format: WeightFormat, variant: MatmulVariant): boolean {
    return this.kernels.has(`${format}.${variant}`);
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
    const variant = args.variant ?? (M >= TILED_MIN_ROWS ? this.rowsVariant : this.decodeVariant);
    const quads = variant === 'v2' && (args.quads ?? true) && v2ReadsQuads(K, ldx, 'buffer' in args.x ? (args.x.offset ?? 0) : 0);
    const kernel = this.kernels.get(`${formatOf(w)}.${variant}${quads ? '.x4' : ''}`);
    if (!kernel && variant === 'v2h') throw new GpuShapeError(name, `variant v2h needs f16 weights and a device with shader-f16; this weight is ${formatOf(w)}`);
    if (!kernel && variant === 'v3') throw new GpuShapeError(name, 'variant v3 needs the subgroups feature, which this device lacks: use v2');
    if (!kernel) throw new GpuShapeError(name, `weight format ${formatOf(w)} was not compiled: create the op with MatmulOp.create(ctx, ['${formatOf(w)}', ...])`);
    for (const chunk of w.chunks) {
      const uniforms = MATMUL_PARAMS.pack({ ...base, N: chunk.rows, n0: chunk.row0 });
      const buffers = { x: args.x, w: chunk.buffer, bias: args.bias ?? rec.dummy, loraU: lora?.u ?? rec.dummy, loraB: lora?.b ?? rec.dummy, out: args.out };
      const workgroups =
        variant === 'v0'
          ? grid1d(Math.ceil((M * chunk.rows) / 64))
          : variant === 'v3'
            ? grid1d(chunk.rows * Math.ceil(M / 8))
            : [Math.ceil(chunk.rows / 64), Math.ceil(M / (variant === 'v1' ? 64 : 8)), 1];
      rec.dispatch(kernel, uniforms, buffers, workgroups);
    }
  }
}
