/**
 * What the GPU kit measures, in its two modes — the one table the Node side (bench/gpu-kit/*.ts) reads; the Python
 * side gets its share through full.json, never a copy of these numbers:
 *  - 'gpu': a real adapter (an H100 or H200 lent for ~15 minutes): Qwen3-0.6B's full shape, decode at B = 1 and B = 8,
 *    a GRPO step of G = 4 episodes of ~1k tokens (4 turns of ≤ 248 generated tokens plus the toy prompt and tool
 *    turns), one SFT step, every check of GPU_CHECKS;
 *  - 'reduced': this repository's CI machine on SwiftShader (~1 GFLOP/s): the tiny test model
 *    (src/model/tiny-model.ts defaults: 2 layers, C = 64, but 512 ids), a few tokens, two small checks. It
 *    exists so that the kit's every path runs in the suite (tests/scripts/gpu-kit.test.ts) and cannot rot.
 *
 * Weights are the same generator and seed as bench:full (bench/full/models.ts: `randomModelWeights` with
 * `createRng(0)`, written as bf16), so a GPU run and `npm run bench:full -- --shapes qwen3-0.6b` load identical bits.
 */
import type { SamplingParams } from '../../src/gpu/kernels/sample.ts';
import { QWEN3_0_6B, type ModelConfig } from '../../src/model/config.ts';
import { tinyModelConfig } from '../../src/model/tiny-model.ts';

export type KitMode = 'gpu' | 'reduced';
export const KIT_MODES: readonly KitMode[] = ['gpu', 'reduced'];

/** bench:full's seed (bench/full.bench.ts SEED). */
export const MODEL_SEED = 0;
/** Qwen3's generation config, as bench:full samples. */
export const KIT_SAMPLING: SamplingParams = { temperature: 0.6, topK: 20, topP: 0.95 };

/**
 * The registered checks (src/gpu-tests/registry.ts) the issue names as never run on a real GPU or worth re-running
 * there: matmul v2/v3/v2h (the `matmul` check compiles v3 where `subgroups` is present and v2h where `shader-f16` is),
 * the fused layer, attention, and the backward kernels; plus the whole-model forward and training passes; and the
 * "reads" learning run with its lr-0 control, too long for the suite on SwiftShader (> 15 min) but ~1 min on an H200
 * (docs/gpu-kit.md: it passed 5 of 6 seeds there, as the float64 reference passes 4 of 5: a run may fail it honestly).
 */
export const GPU_CHECKS: readonly string[] = [
  'matmul',
  'fused-linear',
  'qk-norm-rope',
  'engine-fused',
  'attention',
  'backward-attention',
  'backward-matmul-dx',
  'backward-lora',
  'backward-rmsnorm',
  'backward-swiglu',
  'backward-token-logprob',
  'adamw',
  'quant-matmul',
  'train-gradients',
  'train-learning-grpo-reads',
  'train-learning-grpo-reads-lr0',
];

export interface TrainSettings {
  rank: number;
  /** GRPO: G episodes of one prompt, ≤ K turns of ≤ M generated tokens each. */
  group: number;
  turns: number;
  newTokens: number;
  klBeta: number;
  /** S of the training model and T of its micro-batches. */
  contextTokens: number;
  microBatchTokens: number;
  /** SFT: Oracle demonstrations per step. */
  sftExamples: number;
}

export interface KitSettings {
  mode: KitMode;
  label: string;
  config: ModelConfig;
  checks: readonly string[];
  /** Prompt tokens (T) and decoded tokens (N) of the decode measurement, at each batch size B. */
  prompt: number;
  decode: number;
  batches: readonly number[];
  /** The untimed warm-up before each decode measurement (bench/engine/measure.ts; default: the prompt and 2 steps). */
  warmup?: { prompt: number; decode: number };
  /** The prompt whose last-position logits the PyTorch side compares (ids from bench/engine/measure.ts promptIds). */
  logitsPrompt: number;
  /** Bytes copied (each way) by the device-bandwidth measurement. */
  copyBytes: number;
  train: TrainSettings;
}

export const KIT_SETTINGS: Readonly<Record<KitMode, KitSettings>> = {
  gpu: {
    mode: 'gpu',
    label: 'Qwen3-0.6B',
    config: QWEN3_0_6B,
    checks: GPU_CHECKS,
    prompt: 128,
    decode: 64,
    batches: [1, 8],
    logitsPrompt: 32,
    copyBytes: 512 * 1024 * 1024,
    train: { rank: 8, group: 4, turns: 4, newTokens: 248, klBeta: 0.04, contextTokens: 1280, microBatchTokens: 4096, sftExamples: 4 },
  },
  reduced: {
    mode: 'reduced',
    label: 'tiny Qwen3 (L=2, C=64, V=512)',
    // A small vocabulary: the LM head and its backward dominate a tiny model on SwiftShader at V = 151,936.
    config: tinyModelConfig({ vocabSize: 512 }),
    checks: ['rmsnorm', 'backward-swiglu'],
    prompt: 8,
    decode: 3,
    batches: [1, 2],
    warmup: { prompt: 2, decode: 1 },
    logitsPrompt: 6,
    copyBytes: 4 * 1024 * 1024,
    train: { rank: 4, group: 2, turns: 1, newTokens: 4, klBeta: 0.04, contextTokens: 128, microBatchTokens: 128, sftExamples: 2 },
  },
};

export function isKitMode(text: string): text is KitMode {
  return (KIT_MODES as readonly string[]).includes(text);
}
