/**
 * Every GPU check by name, and how one is run: the single list that the browser harness (harness.ts, bundled into a
 * Playwright page) and the Node suite (tests/gpu/checks-node*.test.ts, on Dawn) both run, so a check registered here
 * runs in both places. No `window`, DOM or Node built-ins: this module is imported on either side.
 *
 * A check takes a GPU context and a seed (inputs, weights and prompts are drawn from it, see seed.ts) and returns its
 * comparisons against the float64 reference; `note` records figures it reports without asserting (dispatch counts…).
 * How a report is printed and judged is in report.ts (which the Playwright process imports without the checks).
 */
import type { GpuContext } from '../gpu/device.ts';
import type { Comparison } from './compare.ts';
import type { CheckReport } from './report.ts';
import { checkAdapterRoundtrip } from './checks/adapter-roundtrip.ts';
import { checkAdapterSlot } from './checks/adapter-slot.ts';
import { checkAttention } from './checks/attention.ts';
import { checkAdamw, checkRmsnormBackward, checkSwigluBackward, checkTokenLogprobBackward } from './checks/backward-elementwise.ts';
import { checkBackwardAttention } from './checks/backward-attention.ts';
import { checkLoraBackward, checkMatmulDx } from './checks/backward-linear.ts';
import { checkEmbedding, checkLogSoftmax, checkResidual, checkRmsnorm, checkRope, checkSwiglu } from './checks/elementwise.ts';
import { checkEngine, checkEngineLora, checkEngineQwen2 } from './checks/engine.ts';
import { checkEngineSample } from './checks/engine-sample.ts';
import { checkEngineFused, checkFusedLinear, checkQkNormRope } from './checks/fused.ts';
import { checkMatmul } from './checks/matmul.ts';
import { checkQuantEmbedding, checkQuantEngine, checkQuantMatmul } from './checks/quant.ts';
import { checkSampleDistribution, checkSampleGreedy, checkSampleVocab } from './checks/sample.ts';
import { checkTrainAdamwStep, checkTrainGradients, checkTrainLogprobs } from './checks/train-engine.ts';
import { TRAIN_LEARNING_CHECKS } from './checks/train-learning.ts';
import { TRAIN_READS_CHECKS } from './checks/train-reads.ts';
import { checkTrainScoring } from './checks/train-scoring.ts';

export { failingCases, reportLines, type CheckReport } from './report.ts';

/** A check returns its comparisons; `note` records figures it reports without asserting (dispatch counts…). */
export type Check = (ctx: GpuContext, seed: number, note: (text: string) => void) => Promise<Comparison[]>;

export const CHECKS: Readonly<Record<string, Check>> = {
  matmul: checkMatmul,
  rmsnorm: checkRmsnorm,
  rope: checkRope,
  embedding: checkEmbedding,
  swiglu: checkSwiglu,
  residual: checkResidual,
  attention: checkAttention,
  logsoftmax: checkLogSoftmax,
  engine: checkEngine,
  'engine-lora': checkEngineLora,
  'engine-qwen2': checkEngineQwen2,
  'engine-fused': checkEngineFused,
  'fused-linear': checkFusedLinear,
  'qk-norm-rope': checkQkNormRope,
  'sample-greedy': checkSampleGreedy,
  'sample-vocab': checkSampleVocab,
  'sample-distribution': checkSampleDistribution,
  'engine-sample': checkEngineSample,
  'quant-matmul': checkQuantMatmul,
  'quant-embedding': checkQuantEmbedding,
  'quant-engine': checkQuantEngine,
  'train-logprobs': checkTrainLogprobs,
  'train-gradients': checkTrainGradients,
  'train-adamw-step': checkTrainAdamwStep,
  'train-scoring': checkTrainScoring,
  'backward-rmsnorm': checkRmsnormBackward,
  'backward-swiglu': checkSwigluBackward,
  'backward-token-logprob': checkTokenLogprobBackward,
  adamw: checkAdamw,
  'backward-attention': checkBackwardAttention,
  'backward-matmul-dx': checkMatmulDx,
  'backward-lora': checkLoraBackward,
  'adapter-roundtrip': checkAdapterRoundtrip,
  'adapter-slot': checkAdapterSlot,
  ...TRAIN_LEARNING_CHECKS,
  ...TRAIN_READS_CHECKS,
};

/** Every registered check's name, in registration order. */
export const CHECK_NAMES: readonly string[] = Object.keys(CHECKS);

export class UnknownCheckError extends Error {
  constructor(readonly check: string) {
    super(`gpu checks: no check named '${check}'; registered: ${CHECK_NAMES.join(', ')} (src/gpu-tests/registry.ts)`);
    this.name = 'UnknownCheckError';
  }
}

/** The adapter as the report lines print it: "vendor/architecture", with " +f16" when shader-f16 is on. */
export function adapterLabel(ctx: GpuContext): string {
  return `${ctx.adapterInfo.vendor}/${ctx.adapterInfo.architecture}${ctx.features.shaderF16 ? ' +f16' : ''}`;
}

/** Runs the check `name` with `seed` on `ctx`. */
export async function runCheck(ctx: GpuContext, name: string, seed: number): Promise<CheckReport> {
  const check = CHECKS[name];
  if (!check) throw new UnknownCheckError(name);
  const start = performance.now();
  const notes: string[] = [];
  const results = await check(ctx, seed, (text) => notes.push(text));
  return {
    check: name,
    seed,
    adapter: adapterLabel(ctx),
    results,
    notes,
    pass: results.length > 0 && results.every((r) => r.pass),
    ms: performance.now() - start,
  };
}
