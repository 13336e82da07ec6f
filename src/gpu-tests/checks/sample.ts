/**
 * Checks of the GPU sampler (kernels/sample.ts) against the float64 reference distribution (sample-ref.ts):
 * - greedy: the token is the argmax (lowest index on a planted tie), log-prob 0, on the real vocabulary V = 151936;
 * - real vocabulary, fresh random logits, for temperature alone, top-k, top-p and both: the kept-token count equals
 *   the reference's, the log-probability equals log q(token) within LOGPROB_TOL, the uniform equals sample-rng.ts's
 *   bit for bit, the token is the one the reference CDF maps that uniform to (within CDF_SLACK of an interval edge,
 *   for f32 sums), and sampling the rows one at a time gives the same bits as the batch;
 * - distribution: 20,000 draws (keys (seed, 0, 0..19999)) from one fixed 10-token logit row per setting (the
 *   32-wide kernel; sample-vocab runs the 256-wide one on the real vocabulary), Pearson's
 *   chi-square against q at a false-failure rate of 1e-6 per setting (ALPHA), tokens outside the kept set never
 *   drawn, and every draw's log-prob equal to log q(token).
 */
import { createRng } from '../../data/rng.ts';
import type { GpuContext } from '../../gpu/device.ts';
import { SampleOp, packSampleKeys, unpackSampled, type Sampled, type SamplingParams } from '../../gpu/kernels/sample.ts';
import { sampleUniform, type SampleKey } from '../../gpu/kernels/sample-rng.ts';
import { Recorder } from '../../gpu/recorder.ts';
import { readBuffer } from '../../gpu/buffers.ts';
import { compare, type Comparison } from '../compare.ts';
import { cdfInterval, referenceDistribution } from '../sample-ref.ts';
import { chiSquareTest, type ChiSquareResult } from '../stats.ts';
import { Scope, randomF32 } from '../util.ts';

const LOGPROB_TOL = { abs: 1e-4, rel: 1e-5 };
const CDF_SLACK = 1e-5;
/** False-failure rate of each chi-square test. */
export const ALPHA = 1e-6;
const DRAWS = 20_000;

async function runSampler(ctx: GpuContext, op: SampleOp, logits: ArrayLike<number>, keys: readonly SampleKey[], V: number, params: SamplingParams): Promise<Sampled> {
  const M = keys.length;
  const scope = new Scope(ctx);
  const rec = new Recorder(ctx, 'check.sample');
  try {
    const out = scope.empty('sampled', M * 4);
    op.encode(rec, { out, logits: scope.f32('logits', logits), keys: scope.u32('keys', packSampleKeys(keys)), M, V, params });
    await rec.finish();
    return unpackSampled(new Uint32Array(await readBuffer(ctx, out, M * 16)), M);
  } finally {
    rec.destroy();
    scope.destroy();
  }
}

function describe(p: SamplingParams): string {
  return p.temperature === 0 ? 'greedy' : `T=${p.temperature}${p.topK ? ` top-k=${p.topK}` : ''}${p.topP !== undefined && p.topP < 1 ? ` top-p=${p.topP}` : ''}`;
}

/** A chi-square result as a comparison: maxAbs is the statistic, tol.abs the critical value, maxRel the p-value. */
function chiComparison(label: string, shape: string, r: ChiSquareResult): Comparison {
  return { label, shape: `${shape} df=${r.df}`, count: r.bins, maxAbs: r.statistic, maxRel: r.pValue, worst: -1, tol: { abs: r.critical, rel: 0 }, pass: r.pass };
}

function exact(label: string, shape: string, gpu: ArrayLike<number>, ref: ArrayLike<number>): Comparison {
  return compare(label, shape, gpu, ref, { abs: 0, rel: 0 });
}

export async function checkSampleGreedy(ctx: GpuContext, seed: number): Promise<Comparison[]> {
  const op = await SampleOp.create(ctx);
  const V = 151936;
  const M = 5;
  const rng = createRng(seed * 13 + 5);
  const logits = Float32Array.from(randomF32(rng, M * V, 8));
  // Row 4: a planted tie of the maximum at 70000 and 9000: the lower index wins.
  logits[4 * V + 70000] = 50;
  logits[4 * V + 9000] = 50;
  const keys = Array.from({ length: M }, (_, i) => ({ seed, sequence: i, step: 0 }));
  const got = await runSampler(ctx, op, logits, keys, V, { temperature: 0 });
  const want = Array.from({ length: M }, (_, m) => referenceDistribution(logits.subarray(m * V, (m + 1) * V), { temperature: 0 }).q.indexOf(1));
  const shape = `M=${M} V=${V}`;
  return [exact(`greedy token == argmax (${[...got.tokens].join(',')})`, shape, got.tokens, want), exact('greedy log-prob == 0', shape, got.logprobs, new Float64Array(M))];
}

export async function checkSampleVocab(ctx: GpuContext, seed: number, note: (text: string) => void): Promise<Comparison[]> {
  const op = await SampleOp.create(ctx);
  const V = 151936;
  const M = 3;
  const settings: SamplingParams[] = [{ temperature: 0.8 }, { temperature: 1, topK: 50 }, { temperature: 0.7, topP: 0.9 }, { temperature: 1.2, topK: 40, topP: 0.8 }];
  const results: Comparison[] = [];
  for (const [i, params] of settings.entries()) {
    const rng = createRng(seed * 101 + i);
    const logits = Float32Array.from(randomF32(rng, M * V, 6));
    // Row 0 gets a peaked distribution so top-p keeps few tokens; the others stay flat (top-p keeps many).
    for (let v = 0; v < 30; v++) logits[Math.floor(rng.next() * V)] = 14 + v * 0.1;
    const keys = Array.from({ length: M }, (_, m) => ({ seed: seed + 7, sequence: m, step: 3 + i }));
    const got = await runSampler(ctx, op, logits, keys, V, params);
    const alone = await Promise.all(keys.map((k, m) => runSampler(ctx, op, logits.subarray(m * V, (m + 1) * V), [k], V, params)));
    const refLogprob: number[] = [];
    const refKept: number[] = [];
    let cdfMiss = 0;
    for (let m = 0; m < M; m++) {
      const { q, kept } = referenceDistribution(logits.subarray(m * V, (m + 1) * V), params);
      const token = got.tokens[m];
      refLogprob.push(Math.log(q[token]));
      refKept.push(kept);
      const [lo, hi] = cdfInterval(q, token);
      const u = got.uniforms[m];
      cdfMiss += u >= lo - CDF_SLACK && u < hi + CDF_SLACK ? 0 : 1;
    }
    const shape = `${describe(params)} M=${M} V=${V}`;
    note(`${shape}: tokens ${[...got.tokens].join(',')}, kept ${[...got.kept].join(',')}, log-probs ${[...got.logprobs].map((x) => x.toFixed(3)).join(',')}`);
    results.push(
      compare('log-prob == log q(token)', shape, got.logprobs, refLogprob, LOGPROB_TOL),
      // f32 mass sums decide the top-p cut: within 0.1% (or one token) of the float64 count.
      compare('kept count ≈ reference (±0.1%)', shape, got.kept, refKept, { abs: 1, rel: 1e-3 }),
      exact('uniform == sampleUniform(key)', shape, got.uniforms, keys.map(sampleUniform)),
      exact(`token is the reference CDF's at u (±${CDF_SLACK})`, shape, [cdfMiss], [0]),
      exact('tokens alone == in the batch', shape, alone.map((a) => a.tokens[0]), got.tokens),
      exact('log-probs alone == in the batch (bits)', shape, alone.map((a) => a.logprobs[0]), got.logprobs),
    );
  }
  return results;
}

export async function checkSampleDistribution(ctx: GpuContext, seed: number, note: (text: string) => void): Promise<Comparison[]> {
  const op = await SampleOp.create(ctx);
  const row = [2.0, 1.5, 1.0, 0.5, 0.0, -0.5, -1.0, -2.0, -3.0, 1.2];
  const V = row.length;
  const settings: SamplingParams[] = [{ temperature: 1 }, { temperature: 0.7 }, { temperature: 1, topK: 4 }, { temperature: 1.3, topP: 0.8 }, { temperature: 0.9, topK: 6, topP: 0.7 }];
  const logits = new Float32Array(DRAWS * V);
  for (let m = 0; m < DRAWS; m++) logits.set(row, m * V);
  const keys = Array.from({ length: DRAWS }, (_, step) => ({ seed, sequence: 0, step }));
  const results: Comparison[] = [];
  for (const params of settings) {
    const start = performance.now();
    const got = await runSampler(ctx, op, logits, keys, V, params);
    const ms = performance.now() - start;
    const { q } = referenceDistribution(Float32Array.from(row), params);
    const counts = new Array<number>(V).fill(0);
    for (const t of got.tokens) counts[t]++;
    const outside = counts.reduce((n, c, v) => n + (q[v] === 0 ? c : 0), 0);
    const chi = chiSquareTest(counts, q, ALPHA);
    const shape = `${describe(params)} ${DRAWS} draws V=${V}`;
    note(`${shape}: counts ${counts.join(',')} vs expected ${[...q].map((p) => (p * DRAWS).toFixed(0)).join(',')}; X²=${chi.statistic.toFixed(2)} df=${chi.df} p=${chi.pValue.toExponential(2)} critical(α=${ALPHA})=${chi.critical.toFixed(2)}; ${ms.toFixed(0)} ms`);
    results.push(
      chiComparison(`chi-square vs softmax(z) kept (α=${ALPHA})`, shape, chi),
      exact('draws outside the kept set', shape, [outside], [0]),
      compare('log-prob == log q(token), every draw', shape, got.logprobs, Array.from(got.tokens, (t) => Math.log(q[t])), LOGPROB_TOL),
    );
  }
  return results;
}
