/**
 * logsoftmax op (see logsoftmax.wgsl): per-row log-sum-exp over the vocabulary, then either the full
 * log-probabilities (M, V) or only the chosen tokens' log-probabilities (M); and the chosen tokens' backward, in
 * place on the chunk's logits. One workgroup of 256 per row, except the chosen-token forward on short rows
 * (V ≤ TOKEN_ROW_MAX_V: a test or toy vocabulary), which runs one invocation per row (variant 'row'; the .wgsl says
 * why).
 */
import { requireBytes } from '../buffers.ts';
import type { GpuContext } from '../device.ts';
import type { TokenLogprobBackwardArgs } from '../engine/train-ops.ts';
import { GpuShapeError } from '../errors.ts';
import { composeWgsl, getKernel, type BindingSpec, type Kernel } from '../kernel.ts';
import type { BufferArg, Recorder } from '../recorder.ts';
import { defineUniforms } from '../uniforms.ts';
import { WGSL_GRID, WGSL_MATH, grid1d } from '../wgsl/common.ts';
import source from './logsoftmax.wgsl?raw';

export const LOG_SOFTMAX_PARAMS = defineUniforms('LogSoftmaxParams', { M: 'u32', V: 'u32' });

const CODE = composeWgsl(WGSL_GRID, WGSL_MATH, LOG_SOFTMAX_PARAMS.wgsl, source);

const LOG_SOFTMAX_BINDINGS: BindingSpec[] = [
  { binding: 0, kind: 'uniform', name: 'params' },
  { binding: 1, kind: 'read-only-storage', name: 'logits' },
  { binding: 2, kind: 'storage', name: 'out' },
  { binding: 3, kind: 'storage', name: 'lse' },
];

const TOKEN_LOGPROB_BINDINGS: BindingSpec[] = [
  { binding: 0, kind: 'uniform', name: 'params' },
  { binding: 1, kind: 'read-only-storage', name: 'logits' },
  { binding: 3, kind: 'storage', name: 'lse' },
  { binding: 4, kind: 'read-only-storage', name: 'targets' },
  { binding: 5, kind: 'storage', name: 'logprob' },
];

/** lse is declared read_write in the module (the forwards write it), so its layout entry is 'storage' here too. */
const TOKEN_LOGPROB_BACKWARD_BINDINGS: BindingSpec[] = [
  { binding: 0, kind: 'uniform', name: 'params' },
  { binding: 3, kind: 'storage', name: 'lse' },
  { binding: 4, kind: 'read-only-storage', name: 'targets' },
  { binding: 6, kind: 'storage', name: 'logits' },
  { binding: 7, kind: 'read-only-storage', name: 'dlogprob' },
];

export type TokenLogprobVariant = 'workgroup' | 'row';

/**
 * Rows of at most this many logits use token_logprob's 'row' variant by default, and longer rows may not use it: a
 * real vocabulary (151,936 for Qwen) needs the workgroup's parallelism within the row (the LM head's chunks have few
 * rows) and its pairwise sum (one invocation's sequential f32 sum over 151,936 values measured 1e-4 off the f64 lse).
 */
export const TOKEN_ROW_MAX_V = 2048;

export class LogSoftmaxOp {
  private constructor(
    private readonly full: Kernel,
    private readonly token: Record<TokenLogprobVariant, Kernel>,
    private readonly tokenBackward: Kernel,
  ) {}

  static async create(ctx: GpuContext): Promise<LogSoftmaxOp> {
    const [full, token, tokenRow, tokenBackward] = await Promise.all([
      getKernel(ctx, { name: 'logsoftmax.log_softmax', code: CODE, entryPoint: 'log_softmax', bindings: LOG_SOFTMAX_BINDINGS }),
      getKernel(ctx, { name: 'logsoftmax.token_logprob', code: CODE, entryPoint: 'token_logprob', bindings: TOKEN_LOGPROB_BINDINGS }),
      getKernel(ctx, { name: 'logsoftmax.token_logprob.row', code: CODE, entryPoint: 'token_logprob_row', bindings: TOKEN_LOGPROB_BINDINGS }),
      getKernel(ctx, { name: 'logsoftmax.token_logprob_backward', code: CODE, entryPoint: 'token_logprob_backward', bindings: TOKEN_LOGPROB_BACKWARD_BINDINGS }),
    ]);
    return new LogSoftmaxOp(full, { workgroup: token, row: tokenRow }, tokenBackward);
  }

  /** out (M, V) = logits − lse; lse (M). */
  logSoftmax(rec: Recorder, args: { out: BufferArg; lse: BufferArg; logits: BufferArg; M: number; V: number }): void {
    const { M, V } = args;
    requireBytes('log_softmax', 'logits', args.logits, M * V * 4);
    requireBytes('log_softmax', 'out', args.out, M * V * 4);
    requireBytes('log_softmax', 'lse', args.lse, M * 4);
    rec.dispatch(this.full, LOG_SOFTMAX_PARAMS.pack({ M, V }), { logits: args.logits, out: args.out, lse: args.lse }, grid1d(M));
  }

  /**
   * logprob (M) = logits[m, targets[m]] − lse[m]; lse (M). Target ids are the caller's to check against V.
   * `variant` default: 'row' for V ≤ TOKEN_ROW_MAX_V, else 'workgroup'.
   */
  tokenLogprob(
    rec: Recorder,
    args: { logprob: BufferArg; lse: BufferArg; logits: BufferArg; targets: BufferArg; M: number; V: number; variant?: TokenLogprobVariant },
  ): void {
    const { M, V } = args;
    requireBytes('token_logprob', 'logits', args.logits, M * V * 4);
    requireBytes('token_logprob', 'targets', args.targets, M * 4);
    requireBytes('token_logprob', 'logprob', args.logprob, M * 4);
    requireBytes('token_logprob', 'lse', args.lse, M * 4);
    if (args.variant === 'row' && V > TOKEN_ROW_MAX_V) {
      throw new GpuShapeError('token_logprob', `variant 'row' sums a row in one invocation, for V ≤ ${TOKEN_ROW_MAX_V}; V = ${V} needs 'workgroup'`);
    }
    const variant = args.variant ?? (V <= TOKEN_ROW_MAX_V ? 'row' : 'workgroup');
    const buffers = { logits: args.logits, lse: args.lse, targets: args.targets, logprob: args.logprob };
    rec.dispatch(this.token[variant], LOG_SOFTMAX_PARAMS.pack({ M, V }), buffers, grid1d(variant === 'row' ? Math.ceil(M / 64) : M));
  }

  /**
   * In place: logits (M, V) become dlogits = dlogprob[m] · (onehot(targets[m]) − softmax(logits[m])), with lse (M)
   * from `tokenLogprob` on the same logits. The lse buffer is only read (bound read_write, see the bindings).
   */
  tokenLogprobBackward(rec: Recorder, args: TokenLogprobBackwardArgs): void {
    const { M, V } = args;
    if (M <= 0 || V <= 0) throw new GpuShapeError('token_logprob_backward', `M = ${M}, V = ${V} must be positive`);
    requireBytes('token_logprob_backward', 'logits', args.logits, M * V * 4);
    requireBytes('token_logprob_backward', 'lse', args.lse, M * 4);
    requireBytes('token_logprob_backward', 'targets', args.targets, M * 4);
    requireBytes('token_logprob_backward', 'dlogprob', args.dlogprob, M * 4);
    rec.dispatch(
      this.tokenBackward,
      LOG_SOFTMAX_PARAMS.pack({ M, V }),
      { lse: args.lse, targets: args.targets, logits: args.logits, dlogprob: args.dlogprob },
      grid1d(M),
    );
  }
}
