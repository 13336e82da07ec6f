/**
 * Every backward op a training pass records (the contract is train-ops.ts), compiled once per device beside the
 * forward ops (ops.ts): what `QwenTrainer` records its dispatches with. The frozen-weight gradient (matmul_dx) is
 * compiled for the weight formats the engine stores, like the forward matmul.
 */
import type { GpuContext } from '../device.ts';
import { AttentionBackwardOp } from '../kernels/attention-backward.ts';
import { LogSoftmaxOp } from '../kernels/logsoftmax.ts';
import { MatmulBackwardOp } from '../kernels/matmul-backward.ts';
import { OptimizerOp } from '../kernels/optim.ts';
import { RmsnormBackwardOp } from '../kernels/rmsnorm-backward.ts';
import { SwigluBackwardOp } from '../kernels/swiglu-backward.ts';
import type { KvCacheFormat } from '../kv-format.ts';
import type { WeightFormat } from '../quant.ts';
import type { Recorder } from '../recorder.ts';
import type { AttentionBackwardArgs, OptimizerOps, RmsnormBackwardArgs, SwigluBackwardArgs } from './train-ops.ts';

export interface TrainOps {
  /** The contract's MatmulBackwardOps, plus the dx variant choice. */
  matmulBackward: MatmulBackwardOp;
  rmsnormBackward: { encode(rec: Recorder, args: RmsnormBackwardArgs): void };
  swigluBackward: { encode(rec: Recorder, args: SwigluBackwardArgs): void };
  attentionBackward: { encode(rec: Recorder, args: AttentionBackwardArgs): void };
  /** token_logprob (forward, per LM-head chunk) and its backward in place. */
  logsoftmax: LogSoftmaxOp;
  optimizer: OptimizerOps;
}

/** `formats`: the weight formats stored; `kvCache`: the cache storage whose backward attention kernels are compiled. */
export async function createTrainOps(ctx: GpuContext, formats: readonly WeightFormat[], kvCache: KvCacheFormat): Promise<TrainOps> {
  const [matmulBackward, rmsnormBackward, swigluBackward, attentionBackward, logsoftmax, optimizer] = await Promise.all([
    MatmulBackwardOp.create(ctx, formats),
    RmsnormBackwardOp.create(ctx),
    SwigluBackwardOp.create(ctx),
    AttentionBackwardOp.create(ctx, [kvCache]),
    LogSoftmaxOp.create(ctx),
    OptimizerOp.create(ctx),
  ]);
  return { matmulBackward, rmsnormBackward, swigluBackward, attentionBackward, logsoftmax, optimizer };
}
