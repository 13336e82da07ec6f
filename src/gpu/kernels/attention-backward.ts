/**
 * attention backward op (see attention-backward.wgsl): dq, dk, dv of causal GQA attention over one layer's KV cache,
 * for a training batch whose sequences are packed from position 0, each in its own cache slot (the contract is
 * `AttentionBackwardArgs` in engine/train-ops.ts). Probabilities are recomputed from q, the cached keys and the
 * forward's lse. Three dispatches: stats (Δ = rowsum(dout ∘ out), parked in dq), dk/dv per (key token, kv head), dq
 * per (query token, head); the last two as tiled passes (a workgroup per job) or, for heads of at most
 * `ATTENTION_BACKWARD_ROW_MAX_D` values, as row passes (an invocation per job: `defaultAttentionBackwardVariant`).
 * dq, dk and dv are written, not accumulated; the op owns no buffer. The cache is read in its storage format
 * (kv-format.ts, `args.format`): one set of kernels per format, both compiled by `create` unless fewer are asked for.
 */
import { isSoftwareAdapter } from '../adapter-probe.ts';
import { requireBytes } from '../buffers.ts';
import type { GpuContext } from '../device.ts';
import type { AttentionBackwardArgs } from '../engine/train-ops.ts';
import { GpuShapeError } from '../errors.ts';
import { composeWgsl, getKernel, type BindingSpec, type Kernel } from '../kernel.ts';
import { DEFAULT_KV_CACHE, KV_CACHE_FORMATS, kvCacheBytes, kvCacheWgsl, type KvCacheFormat } from '../kv-format.ts';
import type { Recorder } from '../recorder.ts';
import { defineUniforms } from '../uniforms.ts';
import { WGSL_GRID, grid1d } from '../wgsl/common.ts';
import { ATTENTION_MAX_D } from './attention.ts';
import source from './attention-backward.wgsl?raw';

export const ATTENTION_BACKWARD_PARAMS = defineUniforms('AttentionBackwardParams', { T: 'u32', H: 'u32', KVH: 'u32', D: 'u32', S: 'u32', scale: 'f32' });

/** The stats pass parks lse, Δ and the cache row in dq[t, h, 0..2]. */
const MIN_D = 3;
/** Cache rows (slot·S + position) travel as exact f32 integers. */
const MAX_CACHE_ROWS = 2 ** 24;
const WG = 64;

const STATS_BINDINGS: BindingSpec[] = [
  { binding: 0, kind: 'uniform', name: 'params' },
  { binding: 1, kind: 'read-only-storage', name: 'dout' },
  { binding: 2, kind: 'read-only-storage', name: 'out' },
  { binding: 3, kind: 'read-only-storage', name: 'lse' },
  { binding: 4, kind: 'read-only-storage', name: 'slots' },
  { binding: 5, kind: 'read-only-storage', name: 'positions' },
  { binding: 6, kind: 'storage', name: 'dq' },
];

const DKDV_BINDINGS: BindingSpec[] = [
  { binding: 0, kind: 'uniform', name: 'params' },
  { binding: 1, kind: 'read-only-storage', name: 'q' },
  { binding: 2, kind: 'read-only-storage', name: 'dout' },
  { binding: 3, kind: 'read-only-storage', name: 'stats' },
  { binding: 4, kind: 'read-only-storage', name: 'seqEnds' },
  { binding: 5, kind: 'read-only-storage', name: 'kCache' },
  { binding: 6, kind: 'read-only-storage', name: 'vCache' },
  { binding: 7, kind: 'storage', name: 'dk' },
  { binding: 8, kind: 'storage', name: 'dv' },
];

const DQ_BINDINGS: BindingSpec[] = [
  { binding: 0, kind: 'uniform', name: 'params' },
  { binding: 1, kind: 'read-only-storage', name: 'q' },
  { binding: 2, kind: 'read-only-storage', name: 'dout' },
  { binding: 3, kind: 'read-only-storage', name: 'kCache' },
  { binding: 4, kind: 'read-only-storage', name: 'vCache' },
  { binding: 5, kind: 'read-only-storage', name: 'slots' },
  { binding: 6, kind: 'read-only-storage', name: 'positions' },
  { binding: 7, kind: 'storage', name: 'dq' },
];

/** Largest head size of the row passes (ROW_MAX_D in the WGSL: their per-invocation arrays). */
export const ATTENTION_BACKWARD_ROW_MAX_D = 32;

export type AttentionBackwardVariant = 'tiled' | 'row';

/**
 * The passes used when none is named: the row passes on a CPU adapter (SwiftShader) for heads they hold, where a
 * workgroup and its barriers per job cost more than the job (the toy models' D = 8 GRPO update: attention backward
 * 13.0 s → 1.2 s of a 20 s step, Node on SwiftShader); the tiled ones on a GPU, where the row passes are unmeasured.
 */
export function defaultAttentionBackwardVariant(cpu: boolean, D: number): AttentionBackwardVariant {
  return cpu && D <= ATTENTION_BACKWARD_ROW_MAX_D ? 'row' : 'tiled';
}

/** The kernels of one cache format. */
interface Kernels {
  stats: Kernel;
  dkdv: Kernel;
  dq: Kernel;
  dkdvRow: Kernel;
  dqRow: Kernel;
}

async function createKernels(ctx: GpuContext, format: KvCacheFormat): Promise<Kernels> {
  const code = composeWgsl(WGSL_GRID, ATTENTION_BACKWARD_PARAMS.wgsl, kvCacheWgsl(format), source);
  const [stats, dkdv, dq, dkdvRow, dqRow] = await Promise.all([
    getKernel(ctx, { name: `attention.backward_stats.${format}`, code, entryPoint: 'attention_backward_stats', bindings: STATS_BINDINGS }),
    getKernel(ctx, { name: `attention.backward_dkdv.${format}`, code, entryPoint: 'attention_backward_dkdv', bindings: DKDV_BINDINGS }),
    getKernel(ctx, { name: `attention.backward_dq.${format}`, code, entryPoint: 'attention_backward_dq', bindings: DQ_BINDINGS }),
    getKernel(ctx, { name: `attention.backward_dkdv_row.${format}`, code, entryPoint: 'attention_backward_dkdv_row', bindings: DKDV_BINDINGS }),
    getKernel(ctx, { name: `attention.backward_dq_row.${format}`, code, entryPoint: 'attention_backward_dq_row', bindings: DQ_BINDINGS }),
  ]);
  return { stats, dkdv, dq, dkdvRow, dqRow };
}

export class AttentionBackwardOp {
  private constructor(
    private readonly kernels: ReadonlyMap<KvCacheFormat, Kernels>,
    /** The adapter is a CPU rasteriser: the row passes are the default where they fit. */
    private readonly cpu: boolean,
  ) {}

  static async create(ctx: GpuContext, formats: readonly KvCacheFormat[] = KV_CACHE_FORMATS): Promise<AttentionBackwardOp> {
    const kernels = await Promise.all(formats.map((f) => createKernels(ctx, f)));
    return new AttentionBackwardOp(new Map(formats.map((f, i) => [f, kernels[i]])), isSoftwareAdapter(ctx.adapterInfo));
  }

  /**
   * Records the three dispatches; dq, dk, dv must be three distinct buffers (ranges) from every input. `variant`
   * defaults to `defaultAttentionBackwardVariant`; the checks run both.
   */
  encode(rec: Recorder, args: AttentionBackwardArgs, variant: AttentionBackwardVariant = defaultAttentionBackwardVariant(this.cpu, args.D)): void {
    const { T, H, KVH, D, S, B } = args;
    const op = 'attention_backward';
    const format = args.format ?? DEFAULT_KV_CACHE;
    const kernels = this.kernels.get(format);
    if (!kernels) throw new GpuShapeError(op, `the op was created without the ${format} cache kernels`);
    if (KVH <= 0 || H % KVH !== 0) throw new GpuShapeError(op, `H = ${H} must be a multiple of KVH = ${KVH}`);
    if (D > ATTENTION_MAX_D || D < MIN_D || D % 2 !== 0) throw new GpuShapeError(op, `head size D = ${D} must be even and within ${MIN_D}..${ATTENTION_MAX_D}`);
    if (variant === 'row' && D > ATTENTION_BACKWARD_ROW_MAX_D) throw new GpuShapeError(op, `the row passes take heads of at most ${ATTENTION_BACKWARD_ROW_MAX_D} values, got D = ${D}`);
    if (B * S > MAX_CACHE_ROWS) throw new GpuShapeError(op, `B·S = ${B * S} cache rows exceed ${MAX_CACHE_ROWS}; use fewer slots or a shorter context`);
    for (const [name, bytes] of [
      ['dq', T * H * D * 4],
      ['dk', T * KVH * D * 4],
      ['dv', T * KVH * D * 4],
      ['dout', T * H * D * 4],
      ['q', T * H * D * 4],
      ['out', T * H * D * 4],
      ['lse', T * H * 4],
      ['kCache', kvCacheBytes(format, B * S * KVH * D)],
      ['vCache', kvCacheBytes(format, B * S * KVH * D)],
      ['slots', T * 4],
      ['positions', T * 4],
      ['seqEnds', T * 4],
    ] as const) {
      requireBytes(op, name, args[name], bytes);
    }
    if (T === 0) return;
    const { dq, dk, dv, dout, q, out, lse, kCache, vCache, slots, positions, seqEnds } = args;
    const params = ATTENTION_BACKWARD_PARAMS.pack({ T, H, KVH, D, S, scale: 1 / Math.sqrt(D) });
    rec.dispatch(kernels.stats, params, { dout, out, lse, slots, positions, dq }, grid1d(Math.ceil((T * H) / WG)));
    if (variant === 'row') {
      rec.dispatch(kernels.dkdvRow, params, { q, dout, stats: dq, seqEnds, kCache, vCache, dk, dv }, grid1d(Math.ceil((T * KVH) / WG)));
      rec.dispatch(kernels.dqRow, params, { q, dout, kCache, vCache, slots, positions, dq }, grid1d(Math.ceil((T * H) / WG)));
      return;
    }
    rec.dispatch(kernels.dkdv, params, { q, dout, stats: dq, seqEnds, kCache, vCache, dk, dv }, grid1d(T * KVH));
    rec.dispatch(kernels.dq, params, { q, dout, kCache, vCache, slots, positions, dq }, grid1d(T * H));
  }
}
