/**
 * Every forward op of the engine, compiled once per device: what a model step records its dispatches with. The ops
 * that read weights are compiled for the weight formats the engine stores (quant.ts), the cache ops for the plan's
 * KV-cache storage only: on a software adapter every compile costs up to a second, so nothing unused is compiled.
 */
import type { GpuContext } from '../device.ts';
import { AttentionOp } from '../kernels/attention.ts';
import { EmbeddingOp } from '../kernels/embedding.ts';
import { FusedLinearOp } from '../kernels/fused-linear.ts';
import { KvCacheOp } from '../kernels/kvcache.ts';
import { MatmulOp } from '../kernels/matmul.ts';
import { QkNormRopeOp } from '../kernels/qk-norm-rope.ts';
import { ResidualOp } from '../kernels/residual.ts';
import { RmsnormOp } from '../kernels/rmsnorm.ts';
import { RopeOp } from '../kernels/rope.ts';
import { SampleOp } from '../kernels/sample.ts';
import type { KvCacheFormat } from '../kv-format.ts';
import type { WeightFormat } from '../quant.ts';
import { SwigluOp } from '../kernels/swiglu.ts';

export interface EngineOps {
  matmul: MatmulOp;
  rmsnorm: RmsnormOp;
  rope: RopeOp;
  embedding: EmbeddingOp;
  swiglu: SwigluOp;
  residual: ResidualOp;
  kvcache: KvCacheOp;
  attention: AttentionOp;
  sample: SampleOp;
  /** The fused forward's ops (engine/fused-layer.ts); fusedLinear compiles its variants on `prepare`. */
  fusedLinear: FusedLinearOp;
  qkNormRope: QkNormRopeOp;
}

export async function createEngineOps(ctx: GpuContext, formats: readonly WeightFormat[], kvCache: KvCacheFormat): Promise<EngineOps> {
  const [matmul, rmsnorm, rope, embedding, swiglu, residual, kvcache, attention, sample, qkNormRope] = await Promise.all([
    MatmulOp.create(ctx, formats),
    RmsnormOp.create(ctx),
    RopeOp.create(ctx),
    EmbeddingOp.create(ctx, formats),
    SwigluOp.create(ctx),
    ResidualOp.create(ctx),
    KvCacheOp.create(ctx, [kvCache]),
    AttentionOp.create(ctx, [kvCache]),
    SampleOp.create(ctx),
    QkNormRopeOp.create(ctx),
  ]);
  return { matmul, rmsnorm, rope, embedding, swiglu, residual, kvcache, attention, sample, fusedLinear: FusedLinearOp.create(ctx), qkNormRope };
}
