/**
 * Tiny Qwen2/Qwen3 configurations and seeded random weights for tests, e2e and `npm run model:tiny`. The vocabulary
 * stays the real one (V = 151,936, the Qwen3 tokenizer's padded size) so the real tokenizer works with them; only
 * the depth and widths shrink.
 *
 * Initialisation is chosen for useful tests rather than for training: Linear weights N(0, 1/in) keep activations
 * near unit scale, the embedding N(0, 0.25²) gives logits of a few units (a softmax that is neither flat nor
 * one-hot), and norm weights and biases are perturbed away from 1 and 0 so that a kernel ignoring them fails.
 */
import type { Rng } from '../data/rng.ts';
import type { Architecture, ModelConfig } from './config.ts';
import { expectedTensors, type Tensor } from './weights.ts';

export const QWEN_VOCAB_SIZE = 151936;
export const QWEN_BOS_ID = 151643; // <|endoftext|>
export const QWEN_IM_END_ID = 151645; // <|im_end|>

export interface TinyModelOptions {
  architecture: Architecture;
  numLayers: number;
  hiddenSize: number;
  numHeads: number;
  numKvHeads: number;
  /** Qwen3 only (Qwen2's is hiddenSize / numHeads). */
  headDim: number;
  intermediateSize: number;
  tieWordEmbeddings: boolean;
  vocabSize: number;
}

export const DEFAULT_TINY_OPTIONS: TinyModelOptions = {
  architecture: 'qwen3',
  numLayers: 2,
  hiddenSize: 64,
  numHeads: 4,
  numKvHeads: 2,
  headDim: 16,
  intermediateSize: 128,
  tieWordEmbeddings: true,
  vocabSize: QWEN_VOCAB_SIZE,
};

export class TinyModelOptionsError extends Error {
  override name = 'TinyModelOptionsError';
}

export function tinyModelConfig(options: Partial<TinyModelOptions> = {}): ModelConfig {
  const o = { ...DEFAULT_TINY_OPTIONS, ...options };
  const qwen3 = o.architecture === 'qwen3';
  if (o.numHeads % o.numKvHeads !== 0) {
    throw new TinyModelOptionsError(`--kv-heads ${o.numKvHeads} must divide --heads ${o.numHeads}`);
  }
  if (!qwen3 && o.hiddenSize % o.numHeads !== 0) {
    throw new TinyModelOptionsError(`qwen2 needs --hidden (${o.hiddenSize}) to be a multiple of --heads (${o.numHeads}): its head size is hidden/heads`);
  }
  const headDim = qwen3 ? o.headDim : o.hiddenSize / o.numHeads;
  if (headDim % 2 !== 0) throw new TinyModelOptionsError(`head size ${headDim} must be even for RoPE`);
  return {
    architecture: o.architecture,
    vocabSize: o.vocabSize,
    hiddenSize: o.hiddenSize,
    intermediateSize: o.intermediateSize,
    numLayers: o.numLayers,
    numHeads: o.numHeads,
    numKvHeads: o.numKvHeads,
    headDim,
    rmsNormEps: 1e-6,
    ropeTheta: 1_000_000,
    tieWordEmbeddings: o.tieWordEmbeddings,
    qkvBias: !qwen3,
    qkNorm: qwen3,
    maxPositionEmbeddings: qwen3 ? 40960 : 32768,
    eosTokenIds: [QWEN_IM_END_ID, QWEN_BOS_ID],
    bosTokenId: QWEN_BOS_ID,
  };
}

function normal(rng: Rng): number {
  const u1 = Math.max(rng.next(), 1e-300);
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * rng.next());
}

/** Seeded f32 weights for every tensor of `config`, in expectedTensors order (what a checkpoint holds). */
export function randomModelWeights(config: ModelConfig, rng: Rng): Map<string, Tensor> {
  const out = new Map<string, Tensor>();
  for (const spec of expectedTensors(config)) {
    const n = spec.shape.reduce((a, b) => a * b, 1);
    const data = new Float32Array(n);
    const name = spec.name;
    if (name.endsWith('norm.weight')) {
      for (let i = 0; i < n; i++) data[i] = 1 + 0.1 * normal(rng);
    } else if (name.endsWith('.bias')) {
      for (let i = 0; i < n; i++) data[i] = 0.1 * normal(rng);
    } else if (name === 'model.embed_tokens.weight' || name === 'lm_head.weight') {
      for (let i = 0; i < n; i++) data[i] = 0.25 * normal(rng);
    } else {
      const std = 1 / Math.sqrt(spec.shape[1]);
      for (let i = 0; i < n; i++) data[i] = std * normal(rng);
    }
    out.set(name, { shape: spec.shape, data });
  }
  return out;
}
