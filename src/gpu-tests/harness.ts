/**
 * The GPU test harness: a page script (bundled by e2e/gpu/harness.ts with Vite's build API and served on the app's
 * origin) that acquires one device and exposes `window.gpuHarness`, so Playwright specs can run each kernel check in
 * real Chromium (SwiftShader in CI) and read back plain JSON results.
 */
import { acquireGpu, type GpuContext } from '../gpu/device.ts';
import type { MatmulVariant } from '../gpu/kernels/matmul.ts';
import { timeMatmul } from './bench.ts';
import type { Comparison } from './compare.ts';
import { checkAdapterRoundtrip } from './checks/adapter-roundtrip.ts';
import { checkAdapterSlot } from './checks/adapter-slot.ts';
import { checkAttention } from './checks/attention.ts';
import { checkAdamw, checkRmsnormBackward, checkSwigluBackward, checkTokenLogprobBackward } from './checks/backward-elementwise.ts';
import { checkBackwardAttention } from './checks/backward-attention.ts';
import { checkLoraBackward, checkMatmulDx } from './checks/backward-linear.ts';
import { checkDevice } from './checks/device.ts';
import { checkEmbedding, checkLogSoftmax, checkResidual, checkRmsnorm, checkRope, checkSwiglu } from './checks/elementwise.ts';
import { checkEngine, checkEngineLora, checkEngineQwen2 } from './checks/engine.ts';
import { checkEngineSample } from './checks/engine-sample.ts';
import { checkMatmul } from './checks/matmul.ts';
import { checkQuantEmbedding, checkQuantEngine, checkQuantMatmul } from './checks/quant.ts';
import { checkSampleDistribution, checkSampleGreedy, checkSampleVocab } from './checks/sample.ts';
import { checkTrainAdamwStep, checkTrainGradients, checkTrainLogprobs } from './checks/train-engine.ts';
import { TRAIN_LEARNING_CHECKS } from './checks/train-learning.ts';

/** A check returns its comparisons; `note` records figures it reports without asserting (dispatch counts…). */
export type Check = (ctx: GpuContext, seed: number, note: (text: string) => void) => Promise<Comparison[]>;

const CHECKS: Record<string, Check> = {
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
};

export interface CheckReport {
  check: string;
  adapter: string;
  results: Comparison[];
  notes: string[];
  pass: boolean;
  ms: number;
}

let shared: Promise<GpuContext> | null = null;

function context(): Promise<GpuContext> {
  shared ??= acquireGpu({ label: 'gpu-harness' });
  return shared;
}

const harness = {
  checks: Object.keys(CHECKS),
  async run(name: string, seed = 1): Promise<CheckReport> {
    const check = CHECKS[name];
    if (!check) throw new Error(`gpu harness: no check named ${name}; have ${Object.keys(CHECKS).join(', ')}`);
    const ctx = await context();
    const start = performance.now();
    const notes: string[] = [];
    const results = await check(ctx, seed, (text) => notes.push(text));
    return {
      check: name,
      adapter: `${ctx.adapterInfo.vendor}/${ctx.adapterInfo.architecture}${ctx.features.shaderF16 ? ' +f16' : ''}`,
      results,
      notes,
      pass: results.length > 0 && results.every((r) => r.pass),
      ms: performance.now() - start,
    };
  },
  /** Times one matmul shape and variant (see bench.ts). */
  async timeMatmul(M: number, N: number, K: number, variant: MatmulVariant, reps = 3) {
    return timeMatmul(await context(), M, N, K, variant, reps);
  },
  /** Device acquisition, limits, typed errors and loss/recovery (its own devices, not the shared one). */
  device: checkDevice,
};

declare global {
  interface Window {
    gpuHarness?: typeof harness;
  }
}

window.gpuHarness = harness;
document.title = 'gpu-harness ready';
