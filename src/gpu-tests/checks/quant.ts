/**
 * Checks of the quantised weight formats (quant.ts) on the GPU:
 * - matmul with q8, q4 and q4m weights, every variant, against `matmulRef` on the DECODED weights (so the tolerance
 *   measures the kernels' dequantisation and arithmetic), a weight in three row chunks, a LoRA branch, and equal bits
 *   from v0, v1 and v2;
 * - the embedding gather from a q8 / q4 / q4m table in three chunks: exactly the decoded rows;
 * - the tiny Qwen3 model with q8, q4 and q4m weights (q4m's embedding/head at q8, quant.ts tableFormat): every step's logits against the float64 reference given the
 *   decoded weights (the engine's arithmetic, ENGINE_TOL), and against the f16 engine (the cost of quantising:
 *   largest difference and RMS error relative to the RMS logit, printed and held to QUANT_BOUNDS).
 */
import { createRng } from '../../data/rng.ts';
import type { GpuContext } from '../../gpu/device.ts';
import { QwenEngine, type StepInput } from '../../gpu/engine/qwen-engine.ts';
import { EmbeddingOp } from '../../gpu/kernels/embedding.ts';
import { MatmulOp, type MatmulVariant } from '../../gpu/kernels/matmul.ts';
import { createPackedWeight, destroyPackedWeight, writePackedWeight } from '../../gpu/packed-weight.ts';
import { encodeWeight, roundTripWeight, tableFormat, type WeightFormat } from '../../gpu/quant.ts';
import { Recorder } from '../../gpu/recorder.ts';
import { createReferenceSession } from '../../model/reference/model.ts';
import { embeddingRef, matmulRef } from '../../model/reference/ops.ts';
import { randomModelWeights, tinyModelConfig } from '../../model/tiny-model.ts';
import { EMBED_TOKENS, LM_HEAD, type Tensor } from '../../model/weights.ts';
import { compare, compareExact, type Comparison } from '../compare.ts';
import { Scope, randomF32 } from '../util.ts';

const MATMUL_TOL = { abs: 2e-5, rel: 1e-4 };
const ENGINE_TOL = { abs: 5e-5, rel: 1e-4 };
/**
 * Bounds on the quantised engines' logits against the f16 engine on the tiny model: largest absolute difference,
 * and RMS difference / RMS of the f16 logits. The tiny model's weights are uniform random, the worst case for a
 * max-scaled grid (per-weight RMS error 0.4% of the RMS weight at q8, 7% at q4; tests/gpu/quant.test.ts), and its
 * random layers amplify that about 5×; q4 error is ~17× q8's, as the grids' steps (1/7 vs 1/127 of the group's max)
 * predict. Real checkpoints must be measured on their own.
 *
 * These are a budget of the FORMAT on a randomly drawn model, not a tolerance on the GPU's arithmetic (that is the
 * "engine.qN vs reference on decoded weights" comparison, at ENGINE_TOL): how much the logits move depends on how
 * much the seed's random layers amplify weight error, so they are set from the spread over draws, not from one.
 * Measured over ten seeds (1–9 and 367842473; SwiftShader, Node and Chromium bit-identical):
 *   q8: max |Δ| 0.22–0.33, relRMS 0.017–0.026;   q4: max |Δ| 3.3–7.0, relRMS 0.29–0.47.
 * The first bounds (q4 6 and 0.5, q8 0.4 and 0.03) were ~1.7× seed 1's figures alone (q4 3.6 and 34%) and failed
 * at seed 367842473 (q4 max |Δ| 6.97, an extreme over 911,616 logits of a strongly amplifying draw). The bounds
 * below are ~1.5× the largest of the ten draws; a broken quantiser or decoder moves the logits by several RMS
 * logits (≈ 2) at once and fails the tight reference comparison first.
 */
export const QUANT_BOUNDS: Record<QuantFormat, { maxAbs: number; relRms: number }> = {
  q8: { maxAbs: 0.5, relRms: 0.04 },
  q4: { maxAbs: 10, relRms: 0.7 },
  // q4m: 16 levels over [min, max] (step ≤ 15/14 · ½ of q4's on a symmetric group) and a q8 embedding/head.
  q4m: { maxAbs: 10, relRms: 0.7 },
};

type QuantFormat = 'q8' | 'q4' | 'q4m';
const QUANT_FORMATS: readonly QuantFormat[] = ['q8', 'q4', 'q4m'];

interface Case {
  M: number;
  N: number;
  K: number;
  bias: boolean;
  rank: number;
  chunkRows?: number;
}

const CASES: Case[] = [
  { M: 37, N: 96, K: 64, bias: true, rank: 4 },
  { M: 70, N: 130, K: 96, bias: false, rank: 0 },
  { M: 1, N: 200, K: 64, bias: false, rank: 8 },
  { M: 19, N: 100, K: 32, bias: true, rank: 0, chunkRows: 40 },
  { M: 3, N: 151936 / 8, K: 64, bias: false, rank: 0 },
];

export async function checkQuantMatmul(ctx: GpuContext, seed: number): Promise<Comparison[]> {
  const op = await MatmulOp.create(ctx, QUANT_FORMATS);
  const results: Comparison[] = [];
  for (const format of QUANT_FORMATS) {
    for (const c of CASES) {
      const { M, N, K, rank } = c;
      const rng = createRng(seed * 7717 + M * 31 + N + K);
      const x = randomF32(rng, M * K, 1);
      const w = randomF32(rng, N * K, 1 / Math.sqrt(K));
      const bias = c.bias ? randomF32(rng, N, 0.5) : null;
      const a = randomF32(rng, rank * K, 1 / Math.sqrt(K));
      const b = randomF32(rng, N * rank, 0.5);
      const scale = rank > 0 ? 2 / rank : 0;
      const decoded = roundTripWeight(format, w, N, K);
      const ref = new Float64Array(M * N);
      matmulRef(ref, x, decoded, bias, M, N, K);
      if (rank > 0) {
        const u = new Float64Array(M * rank);
        matmulRef(u, x, a, null, M, rank, K);
        const delta = new Float64Array(M * N);
        matmulRef(delta, u, b, null, M, N, rank);
        for (let i = 0; i < ref.length; i++) ref[i] += scale * delta[i];
      }
      const scope = new Scope(ctx);
      const rec = new Recorder(ctx, 'check.quant-matmul');
      const weight = createPackedWeight(ctx, `w.${format}`, N, K, c.chunkRows ? c.chunkRows * (K / (format === 'q8' ? 4 : 8) + K / 32) * 4 : undefined, format);
      try {
        writePackedWeight(ctx, weight, encodeWeight(format, w, N, K));
        const xb = scope.f32('x', x);
        const biasb = bias ? scope.f32('bias', bias) : null;
        const lora = rank > 0 ? { a: scope.f32('A', a), b: scope.f32('B', b), u: scope.empty('u', M * rank), rank, scale } : null;
        const outs: Float32Array[] = [];
        const shape = `${format} M=${M} N=${N} K=${K}${c.bias ? ' bias' : ''}${rank ? ` R=${rank}` : ''}${weight.chunks.length > 1 ? ` chunks=${weight.chunks.length}` : ''}`;
        // v3 (subgroups) on the small-N cases only: SwiftShader runs its one-workgroup-per-column grid ~100× slower
        // than v2 at N = 18,992 (a CPU gains nothing from splitting K); checks/matmul.ts covers v3's chunking.
        const v3 = op.hasSubgroups && N <= 1024 ? ['v3'] : [];
        for (const variant of ['v0', 'v1', 'v2', ...v3] as MatmulVariant[]) {
          const out = scope.empty('out', M * N);
          op.encode(rec, { out, x: xb, w: weight, M, bias: biasb, lora, variant });
          await rec.finish();
          const got = await scope.read(out, M * N);
          outs.push(got);
          results.push(compare(`matmul.${variant}.${format} vs decoded weights`, shape, got, ref, MATMUL_TOL));
        }
        results.push(compareExact(`matmul.${format} v0 == v1 == v2 (bits)`, shape, outs[0], outs[1]), compareExact(`matmul.${format} v1 == v2 (bits)`, shape, outs[1], outs[2]));
      } finally {
        destroyPackedWeight(weight);
        rec.destroy();
        scope.destroy();
      }
    }
  }
  return results;
}

export async function checkQuantEmbedding(ctx: GpuContext, seed: number): Promise<Comparison[]> {
  const op = await EmbeddingOp.create(ctx, QUANT_FORMATS);
  const results: Comparison[] = [];
  const V = 1000;
  const C = 64;
  const T = 21;
  for (const format of QUANT_FORMATS) {
    const rng = createRng(seed * 3 + QUANT_FORMATS.indexOf(format) + 1);
    const table = randomF32(rng, V * C, 0.5);
    const ids = Array.from({ length: T }, () => Math.floor(rng.next() * V));
    const ref = new Float64Array(T * C);
    embeddingRef(ref, roundTripWeight(format, table, V, C), ids, T, C);
    const rowBytes = (C / (format === 'q8' ? 4 : 8) + C / 32) * 4;
    const weight = createPackedWeight(ctx, `table.${format}`, V, C, 340 * rowBytes, format);
    const scope = new Scope(ctx);
    const rec = new Recorder(ctx, 'check.quant-embedding');
    try {
      writePackedWeight(ctx, weight, encodeWeight(format, table, V, C));
      const out = scope.empty('out', T * C);
      op.encode(rec, { out, ids: scope.u32('ids', ids), table: weight, T });
      await rec.finish();
      results.push(compare(`embedding.${format} == decoded rows`, `T=${T} V=${V} C=${C} chunks=${weight.chunks.length}`, await scope.read(out, T * C), ref, { abs: 0, rel: 0 }));
    } finally {
      destroyPackedWeight(weight);
      rec.destroy();
      scope.destroy();
    }
  }
  return results;
}

/** The tensors as the engine stores them: matrices through their format (the embedding / head through `tableFormat`). */
function decodedTensors(tensors: Map<string, Tensor>, format: WeightFormat): Map<string, Tensor> {
  const out = new Map<string, Tensor>();
  for (const [name, t] of tensors) {
    const f = name === EMBED_TOKENS || name === LM_HEAD ? tableFormat(format) : format;
    out.set(name, { shape: t.shape, data: t.shape.length === 2 ? roundTripWeight(f, t.data, t.shape[0], t.shape[1]) : Float64Array.from(t.data) });
  }
  return out;
}

export async function checkQuantEngine(ctx: GpuContext, seed: number, note: (text: string) => void): Promise<Comparison[]> {
  const config = tinyModelConfig();
  const V = config.vocabSize;
  const tensors = randomModelWeights(config, createRng(seed));
  const rng = createRng(seed + 5);
  const prompts = [7, 12].map((n) => Array.from({ length: n }, () => Math.floor(rng.next() * V)));
  const forced = [0, 1].map(() => [0, 1].map(() => Math.floor(rng.next() * V)));
  const steps: StepInput[][] = [prompts.map((ids, slot) => ({ slot, ids })), ...[0, 1].map((s) => forced.map((f, slot) => ({ slot, ids: [f[s]] })))];
  const logitsOf: Partial<Record<WeightFormat, Float32Array[]>> = {};
  const results: Comparison[] = [];
  for (const format of ['f16', ...QUANT_FORMATS] as const) {
    // An f32 KV cache: the comparison with the reference measures the weights' arithmetic (engine.ts checks the f16 cache).
    const engine = await QwenEngine.create(ctx, config, { batch: 2, context: 32, maxTokens: 32, weights: format, kvCache: 'f32' });
    try {
      engine.loadWeights(tensors);
      const refs = prompts.map(() => createReferenceSession(config, decodedTensors(tensors, format), undefined, engine.plan.options.kvCache));
      const rows: Float32Array[] = [];
      for (const [s, inputs] of steps.entries()) {
        const logits = await engine.step(inputs);
        rows.push(logits);
        if (format === 'f16') continue;
        const ref = new Float64Array(inputs.length * V);
        inputs.forEach((input, b) => ref.set(s === 0 ? refs[b].prefill(input.ids) : refs[b].decode(input.ids[0]), b * V));
        results.push(compare(`engine.${format} vs reference on decoded weights`, `qwen3 B=2 ${s === 0 ? 'prefill' : `decode ${s}`}`, logits, ref, ENGINE_TOL));
      }
      logitsOf[format] = rows;
      note(`${format}: ${engine.lastStepDispatches} dispatches per batched decode step; weights ${engine.plan.byKind.weight} bytes`);
    } finally {
      engine.destroy();
    }
  }
  for (const format of QUANT_FORMATS) {
    const f16 = logitsOf.f16!;
    const q = logitsOf[format]!;
    let maxAbs = 0;
    let se = 0;
    let ss = 0;
    let n = 0;
    let agree = 0;
    let total = 0;
    q.forEach((rows, s) => {
      for (let i = 0; i < rows.length; i++) {
        const d = rows[i] - f16[s][i];
        maxAbs = Math.max(maxAbs, Math.abs(d));
        se += d * d;
        ss += f16[s][i] * f16[s][i];
        n++;
      }
      for (let b = 0; b < rows.length / V; b++) {
        total++;
        if (argmax(rows.subarray(b * V, (b + 1) * V)) === argmax(f16[s].subarray(b * V, (b + 1) * V))) agree++;
      }
    });
    const relRms = Math.sqrt(se / n) / Math.sqrt(ss / n);
    const bound = QUANT_BOUNDS[format];
    note(`${format} vs f16 logits (tiny qwen3, ${total} rows of V=${V}): maxAbs=${maxAbs.toExponential(3)} relRMS=${relRms.toExponential(3)} (RMS logit ${Math.sqrt(ss / n).toFixed(3)}); greedy token agrees in ${agree}/${total}`);
    results.push({ label: `${format} vs f16 logits: max |Δ|`, shape: `tiny qwen3 ${total} rows`, count: n, maxAbs, maxRel: relRms, worst: -1, tol: { abs: bound.maxAbs, rel: 0 }, pass: maxAbs <= bound.maxAbs });
    results.push({ label: `${format} vs f16 logits: RMS(Δ)/RMS(f16)`, shape: `tiny qwen3 ${total} rows`, count: n, maxAbs: relRms, maxRel: relRms, worst: -1, tol: { abs: bound.relRms, rel: 0 }, pass: relRms <= bound.relRms });
  }
  return results;
}

function argmax(row: ArrayLike<number>): number {
  let best = 0;
  for (let i = 1; i < row.length; i++) if (row[i] > row[best]) best = i;
  return best;
}
