/**
 * The optimiser op (see optim.wgsl): the global gradient norm over the adapter's tensors (up to P workgroup partials
 * per tensor, fewer for a small one, then one reduction into norm[0] = ‖g‖², on the GPU, deterministic) and a fused AdamW per tensor (PyTorch
 * semantics, clip factor read from the norm buffer, gradient zeroed), implementing `OptimizerOps` of
 * engine/train-ops.ts. Dispatches per optimiser step: tensors + 1 (grad_norm) + tensors (adamw).
 *
 * Scalars that need care (1 − β, the bias corrections) are formed in float64 here and passed as f32 uniforms.
 */
import { requireBytes } from '../buffers.ts';
import type { GpuContext } from '../device.ts';
import type { AdamTensor, AdamWSettings, OptimizerOps } from '../engine/train-ops.ts';
import { GpuShapeError } from '../errors.ts';
import { composeWgsl, getKernel, type BindingSpec, type Kernel } from '../kernel.ts';
import type { BufferArg, Recorder } from '../recorder.ts';
import { defineUniforms, type UniformValues } from '../uniforms.ts';
import { WGSL_GRID, WGSL_WORKGROUP_SUM, grid1d } from '../wgsl/common.ts';
import source from './optim.wgsl?raw';

/** Workgroup partials per tensor and f32 header slots of the norm buffer (P and HEADER in optim.wgsl). */
export const NORM_PARTIALS_PER_TENSOR = 64;
export const NORM_HEADER = 4;
/** Invocations per grad_norm workgroup (WG in optim.wgsl). */
const NORM_WG = 256;

/** grad_norm_partial's workgroups for a tensor of n elements: one per 256 elements, at most P (optim.wgsl). */
export function partialWorkgroups(n: number): number {
  return Math.min(NORM_PARTIALS_PER_TENSOR, Math.ceil(n / NORM_WG));
}

const FIELDS = {
  n: 'u32',
  slot: 'u32',
  count: 'u32',
  use_clip: 'u32',
  max_norm: 'f32',
  decay: 'f32',
  beta1: 'f32',
  beta2: 'f32',
  one_minus_beta1: 'f32',
  one_minus_beta2: 'f32',
  step_size: 'f32',
  sqrt_bc2: 'f32',
  eps: 'f32',
} as const;

export const OPTIM_PARAMS = defineUniforms('OptimParams', FIELDS);
type OptimValues = UniformValues<typeof FIELDS>;

const ZERO: OptimValues = {
  n: 0,
  slot: 0,
  count: 0,
  use_clip: 0,
  max_norm: 0,
  decay: 0,
  beta1: 0,
  beta2: 0,
  one_minus_beta1: 0,
  one_minus_beta2: 0,
  step_size: 0,
  sqrt_bc2: 0,
  eps: 0,
};

const CODE = composeWgsl(WGSL_GRID, OPTIM_PARAMS.wgsl, WGSL_WORKGROUP_SUM, source);

const PARTIAL_BINDINGS: BindingSpec[] = [
  { binding: 0, kind: 'uniform', name: 'params' },
  { binding: 1, kind: 'read-only-storage', name: 'grad' },
  { binding: 2, kind: 'storage', name: 'norm' },
];

const FINAL_BINDINGS: BindingSpec[] = [
  { binding: 0, kind: 'uniform', name: 'params' },
  { binding: 2, kind: 'storage', name: 'norm' },
];

const ADAMW_BINDINGS: BindingSpec[] = [
  { binding: 0, kind: 'uniform', name: 'params' },
  { binding: 2, kind: 'storage', name: 'norm' },
  { binding: 3, kind: 'storage', name: 'param' },
  { binding: 4, kind: 'storage', name: 'grad' },
  { binding: 5, kind: 'storage', name: 'm' },
  { binding: 6, kind: 'storage', name: 'v' },
];

/** The uniform values of one adamw dispatch: float64 bias corrections, rounded to f32 once when packed. */
export function adamwUniforms(n: number, s: AdamWSettings): OptimValues {
  const problems: string[] = [];
  if (!(s.lr >= 0)) problems.push(`lr ${s.lr} must be ≥ 0`);
  if (!(s.beta1 >= 0 && s.beta1 < 1)) problems.push(`beta1 ${s.beta1} must be in [0, 1)`);
  if (!(s.beta2 >= 0 && s.beta2 < 1)) problems.push(`beta2 ${s.beta2} must be in [0, 1)`);
  if (!(s.eps > 0)) problems.push(`eps ${s.eps} must be > 0`);
  if (!(s.weightDecay >= 0)) problems.push(`weightDecay ${s.weightDecay} must be ≥ 0`);
  if (!Number.isInteger(s.step) || s.step < 1) problems.push(`step ${s.step} must be an integer ≥ 1 (1-based)`);
  if (!(s.maxGradNorm >= 0)) problems.push(`maxGradNorm ${s.maxGradNorm} must be ≥ 0 (0 = no clipping)`);
  if (problems.length > 0) throw new GpuShapeError('adamw', problems.join('; '));
  return {
    ...ZERO,
    n,
    use_clip: s.maxGradNorm > 0 ? 1 : 0,
    max_norm: s.maxGradNorm,
    decay: 1 - s.lr * s.weightDecay,
    beta1: s.beta1,
    beta2: s.beta2,
    one_minus_beta1: 1 - s.beta1,
    one_minus_beta2: 1 - s.beta2,
    step_size: s.lr / (1 - s.beta1 ** s.step),
    sqrt_bc2: Math.sqrt(1 - s.beta2 ** s.step),
    eps: s.eps,
  };
}

function checkTensors(op: string, tensors: readonly AdamTensor[], norm: BufferArg, normBytes: number, withState: boolean): void {
  if (tensors.length === 0) throw new GpuShapeError(op, 'no tensors given');
  requireBytes(op, 'norm', norm, normBytes);
  tensors.forEach((t, i) => {
    if (!Number.isInteger(t.n) || t.n <= 0) throw new GpuShapeError(op, `tensor ${i}: n = ${t.n} must be a positive integer`);
    requireBytes(op, `tensor ${i} grad`, t.grad, t.n * 4);
    if (withState) for (const name of ['param', 'm', 'v'] as const) requireBytes(op, `tensor ${i} ${name}`, t[name], t.n * 4);
  });
}

export class OptimizerOp implements OptimizerOps {
  private constructor(
    private readonly partial: Kernel,
    private readonly final: Kernel,
    private readonly update: Kernel,
  ) {}

  static async create(ctx: GpuContext): Promise<OptimizerOp> {
    const [partial, final, update] = await Promise.all([
      getKernel(ctx, { name: 'optim.grad_norm_partial', code: CODE, entryPoint: 'grad_norm_partial', bindings: PARTIAL_BINDINGS }),
      getKernel(ctx, { name: 'optim.grad_norm_final', code: CODE, entryPoint: 'grad_norm_final', bindings: FINAL_BINDINGS }),
      getKernel(ctx, { name: 'optim.adamw', code: CODE, entryPoint: 'adamw', bindings: ADAMW_BINDINGS }),
    ]);
    return new OptimizerOp(partial, final, update);
  }

  /** f32 slots: the header ([0] ‖g‖², [1] ‖g‖) and P partials per tensor. */
  normBufferBytes(tensorCount: number): number {
    if (!Number.isInteger(tensorCount) || tensorCount <= 0) throw new GpuShapeError('grad_norm', `tensorCount ${tensorCount} must be a positive integer`);
    return (NORM_HEADER + tensorCount * NORM_PARTIALS_PER_TENSOR) * 4;
  }

  /** norm[0] = Σ over every tensor of Σ grad², norm[1] = its square root (tensors + 1 dispatches). */
  gradNorm(rec: Recorder, args: { tensors: readonly AdamTensor[]; norm: BufferArg }): void {
    const { tensors, norm } = args;
    checkTensors('grad_norm', tensors, norm, tensors.length === 0 ? 0 : this.normBufferBytes(tensors.length), false);
    tensors.forEach((t, i) => {
      const workgroups = partialWorkgroups(t.n);
      rec.dispatch(this.partial, OPTIM_PARAMS.pack({ ...ZERO, n: t.n, slot: i * NORM_PARTIALS_PER_TENSOR }), { grad: t.grad, norm }, [workgroups, 1, 1]);
    });
    rec.dispatch(this.final, OPTIM_PARAMS.pack({ ...ZERO, count: tensors.length * NORM_PARTIALS_PER_TENSOR }), { norm }, [1, 1, 1]);
  }

  /**
   * One AdamW step of every tensor (one dispatch each): param, m, v updated in place, grad zeroed. With
   * maxGradNorm > 0 the gradients are scaled by min(1, maxGradNorm / (‖g‖ + 1e-6)) from norm[0], so `gradNorm`
   * over the same tensors must have been recorded before (same recorder or an earlier submit).
   */
  adamw(rec: Recorder, args: { tensors: readonly AdamTensor[]; norm: BufferArg; settings: AdamWSettings }): void {
    const { tensors, norm, settings } = args;
    checkTensors('adamw', tensors, norm, NORM_HEADER * 4, true);
    for (const t of tensors) {
      rec.dispatch(this.update, OPTIM_PARAMS.pack(adamwUniforms(t.n, settings)), { norm, param: t.param, grad: t.grad, m: t.m, v: t.v }, grid1d(Math.ceil(t.n / 256)));
    }
  }
}
