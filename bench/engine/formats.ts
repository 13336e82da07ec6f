/**
 * The weight formats' error table (issue 14, "the weight format by evidence"), in two parts:
 *
 *  - `tensorErrors()` (CPU only, ~10 s): for each matrix kind of Qwen3-0.6B (q/k/v/o, gate/up/down, the embedding /
 *    LM head), `rows` sampled rows of its real (N, K) shape drawn from bench/engine/synthetic.ts (heavy-tailed, row and
 *    column scales, rare outliers; plus Gaussian and uniform draws for contrast), and M activation rows of that
 *    kind's realistic distribution: relative error ‖(W' − W)·x‖ / ‖W·x‖ over all rows, per format. For the embedding
 *    (a gather, x one-hot) it is the rows' own RMS error. W is the f32 draw itself (the checkpoint's bf16/f32), so
 *    f16 shows its own small cost too.
 *  - `endToEnd()` (GPU engine; on SwiftShader ~1–2 s per token at the full Qwen3-0.6B shape): a synthetic model of
 *    the given shape, the f16 engine's greedy continuation of a random prompt, then every other format teacher-forced
 *    on those same tokens: logits RMS error relative to the f16 logits' RMS, largest |Δ|, top-1 agreement, and the
 *    first position where the top-1 differs (= how many tokens a free-running greedy decode in that format agrees
 *    with f16's before diverging, since up to there both saw the same context).
 *
 * `measureFormats()` runs both and returns plain objects (for `bench:engine --json`); `formatsLines()` prints them.
 */
import { createRng } from '../../src/data/rng.ts';
import type { GpuContext } from '../../src/gpu/device.ts';
import { QwenEngine } from '../../src/gpu/engine/qwen-engine.ts';
import { roundTripWeight, tableFormat, type WeightFormat } from '../../src/gpu/quant.ts';
import { QWEN3_0_6B } from '../../src/model/config.ts';
import type { ModelConfig } from '../../src/model/config.ts';
import { drawActivations, drawWeights, KIND_STD, syntheticModel, type ActivationKind, type WeightDraw } from './synthetic.ts';

export const MEASURED_FORMATS: readonly WeightFormat[] = ['f16', 'q8', 'q4', 'q4m'];

interface MatrixKind {
  name: string;
  /** (N, K) in Qwen3-0.6B. */
  shape: [number, number];
  input: ActivationKind | 'one-hot';
}

const { hiddenSize: C, intermediateSize: I, numHeads: H, numKvHeads: KVH, headDim: D, vocabSize: V } = QWEN3_0_6B;
const KINDS: MatrixKind[] = [
  { name: 'q_proj', shape: [H * D, C], input: 'rmsnorm' },
  { name: 'k_proj', shape: [KVH * D, C], input: 'rmsnorm' },
  { name: 'v_proj', shape: [KVH * D, C], input: 'rmsnorm' },
  { name: 'o_proj', shape: [C, H * D], input: 'attention' },
  { name: 'gate_proj', shape: [I, C], input: 'rmsnorm' },
  { name: 'up_proj', shape: [I, C], input: 'rmsnorm' },
  { name: 'down_proj', shape: [C, I], input: 'swiglu' },
  { name: 'lm_head', shape: [V, C], input: 'rmsnorm' },
  { name: 'embed_tokens', shape: [V, C], input: 'one-hot' },
];

export interface TensorErrorRow {
  kind: string;
  /** The full (N, K) shape; `rows` of its rows were drawn. */
  shape: [number, number];
  rows: number;
  draw: WeightDraw;
  input: string;
  /** ‖ΔW·x‖/‖W·x‖ per format (for the embedding: RMS(ΔE)/RMS(E)). */
  relError: Record<WeightFormat, number>;
}

/** Relative error of W·x per kind, draw and format. `rows` rows of each matrix, `M` activation rows. */
export function tensorErrors({ seed = 1, rows = 256, M = 16, draws = ['heavy', 'gaussian', 'uniform'] as WeightDraw[] } = {}): TensorErrorRow[] {
  const out: TensorErrorRow[] = [];
  for (const draw of draws) {
    for (const [i, kind] of KINDS.entries()) {
      if (draw !== 'heavy' && kind.name !== 'q_proj' && kind.name !== 'down_proj') continue; // contrast rows only
      const rng = createRng(seed * 1000 + i * 10 + draws.indexOf(draw));
      const [, K] = kind.shape;
      const w = drawWeights(rng, rows, K, KIND_STD[kind.name === 'lm_head' ? 'embed_tokens' : kind.name], draw);
      const x = kind.input === 'one-hot' ? null : drawActivations(rng, M, K, kind.input);
      const relError = {} as Record<WeightFormat, number>;
      for (const format of MEASURED_FORMATS) {
        const back = roundTripWeight(format, w, rows, K);
        let se = 0;
        let ss = 0;
        if (!x) {
          for (let j = 0; j < w.length; j++) {
            se += (back[j] - w[j]) ** 2;
            ss += w[j] ** 2;
          }
        } else {
          for (let m = 0; m < M; m++) {
            for (let n = 0; n < rows; n++) {
              let exact = 0;
              let delta = 0;
              for (let k = 0; k < K; k++) {
                const xv = x[m * K + k];
                exact += w[n * K + k] * xv;
                delta += (back[n * K + k] - w[n * K + k]) * xv;
              }
              se += delta * delta;
              ss += exact * exact;
            }
          }
        }
        relError[format] = Math.sqrt(se / ss);
      }
      out.push({ kind: kind.name, shape: kind.shape, rows, draw, input: kind.input, relError });
    }
  }
  return out;
}

export interface EndToEndOptions {
  /** Layers of the Qwen3-0.6B shape to build (28 is the real model; fewer to fit a slow device). */
  layers: number;
  /**
   * Narrower than Qwen3-0.6B where the device is slow: hidden C (heads C/64 of D = 64, KV heads half of them,
   * MLP 3·C). Absent: the real widths (C 1,024, 16 × 128 heads, 8 KV heads, I 3,072).
   */
  hidden?: number;
  /** A smaller vocabulary where the device is slow (the LM head dominates a narrow model's cost). Absent: 151,936. */
  vocab?: number;
  /** Tokens generated by f16 greedy and teacher-forced into every other format. */
  tokens: number;
  prompt: number;
  seed: number;
  formats?: readonly WeightFormat[];
  progress?: (line: string) => void;
}

export interface EndToEndRow {
  format: WeightFormat;
  /** The embedding / LM head's format in this configuration (quant.ts tableFormat). */
  table: WeightFormat;
  weightBytes: number;
  /** RMS(logits − f16 logits) / RMS(f16 logits), over every position and vocabulary entry. */
  relRms: number;
  maxAbs: number;
  /** Positions whose top-1 token equals f16's, of `positions`. */
  top1Agree: number;
  positions: number;
  /** First position whose top-1 differs (positions when none): a free-running greedy decode agrees up to here. */
  greedyAgreeUntil: number;
  msPerToken: number;
}

export interface EndToEndResult {
  shape: string;
  layers: number;
  tokens: number;
  prompt: number;
  seed: number;
  rmsLogit: number;
  rows: EndToEndRow[];
}

function argmax(row: ArrayLike<number>): number {
  let best = 0;
  for (let i = 1; i < row.length; i++) if (row[i] > row[best]) best = i;
  return best;
}

/** Teacher-forced logits of every format against f16's greedy continuation (see the header). */
export async function endToEnd(ctx: GpuContext, options: EndToEndOptions): Promise<EndToEndResult> {
  const { layers, tokens, prompt, seed } = options;
  const log = options.progress ?? (() => {});
  const narrow = options.hidden ? { hiddenSize: options.hidden, intermediateSize: 3 * options.hidden, numHeads: options.hidden / 64, numKvHeads: Math.max(1, options.hidden / 128), headDim: 64 } : {};
  const config: ModelConfig = { ...QWEN3_0_6B, ...narrow, numLayers: layers, vocabSize: options.vocab ?? QWEN3_0_6B.vocabSize };
  const shape = `qwen3-0.6b L=${layers} C=${config.hiddenSize} I=${config.intermediateSize} H=${config.numHeads}×${config.headDim} KVH=${config.numKvHeads} V=${config.vocabSize}`;
  log(`drawing a synthetic model ${shape} (seed ${seed})`);
  const tensors = syntheticModel(config, seed);
  const rng = createRng(seed + 1);
  const promptIds = Array.from({ length: prompt }, () => Math.floor(rng.next() * config.vocabSize));
  const context = prompt + tokens + 1;
  let reference: Float32Array[] = [];
  let forced: number[] = [];
  const rows: EndToEndRow[] = [];
  let rmsLogit = 0;
  for (const format of ['f16', ...(options.formats ?? MEASURED_FORMATS).filter((f) => f !== 'f16')] as WeightFormat[]) {
    const engine = await QwenEngine.create(ctx, config, { batch: 1, context, maxTokens: Math.max(prompt, 1), weights: format });
    try {
      engine.loadWeights(tensors);
      const steps: Float32Array[] = [await engine.step([{ slot: 0, ids: promptIds }])];
      const t0 = performance.now(); // after the prefill, which also compiles the pipelines
      for (let s = 0; s < tokens - 1; s++) {
        const next = format === 'f16' ? argmax(steps[s]) : forced[s];
        if (format === 'f16') forced.push(next);
        steps.push(await engine.step([{ slot: 0, ids: [next] }]));
        if ((s + 1) % 25 === 0) log(`${format}: ${s + 1}/${tokens} tokens`);
      }
      const msPerToken = (performance.now() - t0) / Math.max(1, tokens - 1);
      if (format === 'f16') {
        reference = steps;
        forced = [...forced, argmax(steps[tokens - 1])];
      }
      let se = 0;
      let ss = 0;
      let maxAbs = 0;
      let agree = 0;
      let until = -1;
      steps.forEach((row, s) => {
        const ref = reference[s];
        for (let v = 0; v < row.length; v++) {
          const d = row[v] - ref[v];
          se += d * d;
          ss += ref[v] * ref[v];
          maxAbs = Math.max(maxAbs, Math.abs(d));
        }
        if (argmax(row) === forced[s]) agree++;
        else if (until < 0) until = s;
      });
      if (format === 'f16') rmsLogit = Math.sqrt(ss / (tokens * config.vocabSize));
      rows.push({ format, table: tableFormat(format), weightBytes: engine.plan.byKind.weight, relRms: Math.sqrt(se / ss), maxAbs, top1Agree: agree, positions: tokens, greedyAgreeUntil: until < 0 ? tokens : until, msPerToken });
      log(`${format}: done, ${msPerToken.toFixed(0)} ms per token`);
    } finally {
      engine.destroy();
    }
  }
  return { shape, layers, tokens, prompt, seed, rmsLogit, rows };
}

export interface FormatsResult {
  tensors: TensorErrorRow[];
  endToEnd: EndToEndResult | null;
  seconds: { tensors: number; endToEnd: number };
}

/**
 * Both tables. `endToEnd: null` skips the GPU part (the tensor table alone takes ~10 s of CPU). At the full shape
 * (28 layers) on SwiftShader, each token costs ~1–2 s per format, so 200 tokens × 4 formats is ~15–30 min; on a
 * real GPU it is seconds.
 */
export async function measureFormats(ctx: GpuContext | null, options: { seed?: number; endToEnd?: Omit<EndToEndOptions, 'seed'> | null } = {}): Promise<FormatsResult> {
  const seed = options.seed ?? 1;
  const t0 = performance.now();
  const tensors = tensorErrors({ seed });
  const t1 = performance.now();
  const e2e = ctx && options.endToEnd ? await endToEnd(ctx, { ...options.endToEnd, seed }) : null;
  return { tensors, endToEnd: e2e, seconds: { tensors: (t1 - t0) / 1000, endToEnd: (performance.now() - t1) / 1000 } };
}

const pct = (x: number) => `${(100 * x).toFixed(x < 0.01 ? 3 : 2)}%`;

/** The tables as printed lines. */
export function formatsLines(result: FormatsResult): string[] {
  const lines = ['weight formats: relative error of W·x per matrix kind (Qwen3-0.6B shapes, synthetic weights and activations)'];
  lines.push(`  ${'kind'.padEnd(13)}${'draw'.padEnd(10)}${'input'.padEnd(10)}${MEASURED_FORMATS.map((f) => f.padStart(10)).join('')}`);
  for (const r of result.tensors) lines.push(`  ${r.kind.padEnd(13)}${r.draw.padEnd(10)}${r.input.padEnd(10)}${MEASURED_FORMATS.map((f) => pct(r.relError[f]).padStart(10)).join('')}`);
  const e = result.endToEnd;
  if (e) {
    lines.push(`end to end: ${e.shape}, prompt ${e.prompt}, ${e.tokens} tokens of f16 greedy teacher-forced (RMS logit ${e.rmsLogit.toFixed(3)})`);
    lines.push(`  ${'format'.padEnd(8)}${'head'.padEnd(6)}${'weights'.padStart(11)}${'logit relRMS'.padStart(14)}${'max |Δ|'.padStart(10)}${'top-1'.padStart(10)}${'greedy agrees'.padStart(15)}${'ms/token'.padStart(10)}`);
    for (const r of e.rows) {
      lines.push(
        `  ${r.format.padEnd(8)}${r.table.padEnd(6)}${`${(r.weightBytes / 2 ** 20).toFixed(0)} MiB`.padStart(11)}${pct(r.relRms).padStart(14)}${r.maxAbs.toFixed(3).padStart(10)}${`${r.top1Agree}/${r.positions}`.padStart(10)}${`${r.greedyAgreeUntil} tokens`.padStart(15)}${r.msPerToken.toFixed(0).padStart(10)}`,
      );
    }
  }
  lines.push(`  (tensor table ${result.seconds.tensors.toFixed(1)} s${e ? `, end to end ${result.seconds.endToEnd.toFixed(0)} s` : ''})`);
  return lines;
}
