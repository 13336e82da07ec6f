/**
 * Backward of the linear layers (kernels/matmul-backward.ts) against the float64 reference, on fresh random inputs:
 * - `backward-matmul-dx`: dx (+)= dy·W for f16, q8 and q4 weights (q8/q4 against `matmulBackwardRef` on the DECODED
 *   weights, so the tolerance measures the kernel's arithmetic), every variant (tiled, simple and rows, which must
 *   also agree bit for bit), M not a multiple of the 64-row tile nor of rows' 8-row block, K not a multiple of the
 *   64-column tile nor K/2 of rows' 64-invocation workgroup, weights in
 *   2–3 row chunks (a small maxBytes), accumulate on (dx starts from random values) and off (dx starts from garbage
 *   that must be overwritten), and an LM-head-like shape (N = V/8 rows in 3 chunks). Notes the GFLOP/s of dx (tiled)
 *   vs the forward matmul v1 on one shape (not asserted).
 * - `backward-lora`: matmul_dx followed by the LoRA backward gives `linearBackwardRef` exactly as the trainer uses
 *   it: dx = dx0 + dy·W + scale·(dy·B)·A, dA = dA0 + scale·(Bᵀ·dyᵀ)·x, dB = dB0 + scale·dyᵀ·u, and the scratch
 *   du = scale·dy·B, for rank 1 and 8, with u = x·Aᵀ as the forward keeps it.
 */
import { createRng, type Rng } from '../../data/rng.ts';
import type { GpuContext } from '../../gpu/device.ts';
import { MatmulOp } from '../../gpu/kernels/matmul.ts';
import { MatmulBackwardOp, type MatmulDxVariant } from '../../gpu/kernels/matmul-backward.ts';
import { createPackedWeight, destroyPackedWeight, writePackedWeight, type PackedWeight } from '../../gpu/packed-weight.ts';
import { encodeWeight, roundTripWeight, weightRowWords, type WeightFormat } from '../../gpu/quant.ts';
import { Recorder } from '../../gpu/recorder.ts';
import { linearBackwardRef } from '../../model/reference/backward.ts';
import { matmulBackwardRef, matmulRef } from '../../model/reference/ops.ts';
import { compare, compareExact, type Comparison, type Tolerance } from '../compare.ts';
import { Scope, randomF32 } from '../util.ts';

/** |gpu − ref| <= abs + rel·|ref| for f32 sums of up to a few hundred products (measured maxAbs < 1e-6). */
const DX_TOL: Tolerance = { abs: 2e-5, rel: 1e-4 };
/** The LM-head-like case sums 19k products of ~0.1 into values ~5 (measured maxAbs 2.9e-5, all within rel 5e-5). */
const DX_TOL_LONG: Tolerance = { abs: 1e-4, rel: 1e-4 };
/** LoRA sums over M, N or R of products ~1 (measured maxAbs < 6e-6). */
const LORA_TOL: Tolerance = { abs: 2e-5, rel: 1e-4 };

interface DxCase {
  M: number;
  N: number;
  K: number;
  accumulate: boolean;
  /** Split the weight into chunks of at most this many rows. */
  chunkRows?: number;
  formats?: readonly WeightFormat[];
  tol?: Tolerance;
}

const DX_CASES: DxCase[] = [
  { M: 37, N: 96, K: 96, accumulate: false },
  { M: 70, N: 130, K: 64, accumulate: true, chunkRows: 48 },
  { M: 130, N: 100, K: 160, accumulate: false, chunkRows: 40 },
  { M: 1, N: 200, K: 32, accumulate: true, chunkRows: 64 },
  { M: 19, N: 50, K: 36, accumulate: true, chunkRows: 20, formats: ['f16'] },
  { M: 3, N: 151936 / 8, K: 64, accumulate: false, chunkRows: 8000, tol: DX_TOL_LONG },
];

const FORMATS: readonly WeightFormat[] = ['f16', 'q8', 'q4'];

/** A packed weight of `format` holding `values`, in chunks of at most `chunkRows` rows; the caller destroys it. */
function uploadWeight(ctx: GpuContext, label: string, format: WeightFormat, values: Float64Array, N: number, K: number, chunkRows?: number): PackedWeight {
  const maxBytes = chunkRows ? chunkRows * weightRowWords(format, K) * 4 : undefined;
  const weight = createPackedWeight(ctx, label, N, K, maxBytes, format);
  writePackedWeight(ctx, weight, encodeWeight(format, values, N, K));
  return weight;
}

export async function checkMatmulDx(ctx: GpuContext, seed: number, note: (text: string) => void): Promise<Comparison[]> {
  const op = await MatmulBackwardOp.create(ctx, FORMATS);
  const results: Comparison[] = [];
  for (const format of FORMATS) {
    for (const c of DX_CASES) {
      if (c.formats && !c.formats.includes(format)) continue;
      results.push(...(await runDxCase(ctx, op, c, format, seed)));
    }
  }
  const timing = await timeDxVsForward(ctx, op, 128, 256, 256);
  note(`dx tiled ${timing.dx.toFixed(3)} GFLOP/s vs forward matmul v1 ${timing.forward.toFixed(3)} GFLOP/s (f16, M=128 N=256 K=256, median of 3)`);
  return results;
}

async function runDxCase(ctx: GpuContext, op: MatmulBackwardOp, c: DxCase, format: WeightFormat, seed: number): Promise<Comparison[]> {
  const { M, N, K } = c;
  const rng = createRng(seed * 6121 + M * 31 + N * 7 + K + FORMATS.indexOf(format));
  const dy = randomF32(rng, M * N, 1);
  const w = randomF32(rng, N * K, 1 / Math.sqrt(K));
  const init = randomF32(rng, M * K, 1);
  const ref = c.accumulate ? Float64Array.from(init) : new Float64Array(M * K);
  matmulBackwardRef(ref, null, null, dy, new Float64Array(M * K), roundTripWeight(format, w, N, K), M, N, K);

  const scope = new Scope(ctx);
  const rec = new Recorder(ctx, 'check.matmul-dx');
  const weight = uploadWeight(ctx, `w.${format}`, format, w, N, K, c.chunkRows);
  try {
    const dyb = scope.f32('dy', dy);
    const shape = `${format} M=${M} N=${N} K=${K} chunks=${weight.chunks.length}${c.accumulate ? ' +=' : ' ='}`;
    const results: Comparison[] = [];
    const outs: Float32Array[] = [];
    for (const variant of ['tiled', 'simple', 'rows'] as MatmulDxVariant[]) {
      const dx = scope.f32('dx', init);
      op.dx(rec, { dx, dy: dyb, w: weight, M, accumulate: c.accumulate, variant });
      await rec.finish();
      const got = await scope.read(dx, M * K);
      outs.push(got);
      results.push(compare(`matmul_dx.${variant} vs ref`, shape, got, ref, c.tol ?? DX_TOL));
    }
    results.push(compareExact('matmul_dx tiled == simple (bits)', shape, outs[0], outs[1]));
    results.push(compareExact('matmul_dx rows == simple (bits)', shape, outs[2], outs[1]));
    return results;
  } finally {
    destroyPackedWeight(weight);
    rec.destroy();
    scope.destroy();
  }
}

interface LoraCase {
  M: number;
  N: number;
  K: number;
  rank: number;
}

const LORA_CASES: LoraCase[] = [
  { M: 37, N: 96, K: 64, rank: 1 },
  { M: 70, N: 48, K: 80, rank: 8 },
  { M: 1, N: 130, K: 32, rank: 8 },
];

export async function checkLoraBackward(ctx: GpuContext, seed: number): Promise<Comparison[]> {
  const op = await MatmulBackwardOp.create(ctx);
  const results: Comparison[] = [];
  for (const c of LORA_CASES) results.push(...(await runLoraCase(ctx, op, c, createRng(seed * 4243 + c.M * 17 + c.N + c.rank))));
  return results;
}

async function runLoraCase(ctx: GpuContext, op: MatmulBackwardOp, c: LoraCase, rng: Rng): Promise<Comparison[]> {
  const { M, N, K, rank: R } = c;
  const scale = 2 / R;
  const x = randomF32(rng, M * K, 1);
  const dy = randomF32(rng, M * N, 1);
  const w = randomF32(rng, N * K, 1 / Math.sqrt(K));
  const a = randomF32(rng, R * K, 1 / Math.sqrt(K));
  const b = randomF32(rng, N * R, 0.5);
  const u = new Float64Array(M * R);
  matmulRef(u, x, a, null, M, R, K);
  const uF32 = Float64Array.from(Float32Array.from(u)); // what the forward leaves in act.loraU
  const dx0 = randomF32(rng, M * K, 1);
  const da0 = randomF32(rng, R * K, 1);
  const db0 = randomF32(rng, N * R, 1);

  const wRef = roundTripWeight('f16', w, N, K);
  const dxRef = Float64Array.from(dx0);
  const grad = { da: Float64Array.from(da0), db: Float64Array.from(db0) };
  linearBackwardRef(dxRef, grad, dy, x, uF32, wRef, { a, b, scale, rank: R }, M, N, K);
  const duRef = new Float64Array(M * R);
  for (let m = 0; m < M; m++) {
    for (let r = 0; r < R; r++) {
      let s = 0;
      for (let n = 0; n < N; n++) s += dy[m * N + n] * b[n * R + r];
      duRef[m * R + r] = scale * s;
    }
  }

  const scope = new Scope(ctx);
  const rec = new Recorder(ctx, 'check.lora-backward');
  const weight = uploadWeight(ctx, 'w', 'f16', w, N, K);
  try {
    const dx = scope.f32('dx', dx0);
    const da = scope.f32('dA', da0);
    const db = scope.f32('dB', db0);
    const du = scope.f32('du', randomF32(rng, M * R, 100)); // garbage: du is written, not accumulated
    const xb = scope.f32('x', x);
    const dyb = scope.f32('dy', dy);
    op.dx(rec, { dx, dy: dyb, w: weight, M, accumulate: true });
    op.lora(rec, { x: xb, dy: dyb, u: scope.f32('u', uF32), a: scope.f32('A', a), b: scope.f32('B', b), da, db, du, dx, M, N, K, rank: R, scale });
    await rec.finish();
    const shape = `M=${M} N=${N} K=${K} R=${R}`;
    return [
      compare('lora_backward du', shape, await scope.read(du, M * R), duRef, LORA_TOL),
      compare('lora_backward dB +=', shape, await scope.read(db, N * R), grad.db, LORA_TOL),
      compare('lora_backward dA +=', shape, await scope.read(da, R * K), grad.da, LORA_TOL),
      compare('matmul_dx + lora_backward dx +=', shape, await scope.read(dx, M * K), dxRef, LORA_TOL),
    ];
  } finally {
    destroyPackedWeight(weight);
    rec.destroy();
    scope.destroy();
  }
}

/** GFLOP/s (2·M·N·K per op) of dx tiled and of the forward matmul v1 on one f16 shape, median of 3 after a warm-up. */
async function timeDxVsForward(ctx: GpuContext, op: MatmulBackwardOp, M: number, N: number, K: number): Promise<{ dx: number; forward: number }> {
  const forwardOp = await MatmulOp.create(ctx);
  const rng = createRng(1);
  const scope = new Scope(ctx);
  const rec = new Recorder(ctx, 'bench.matmul-dx');
  const weight = uploadWeight(ctx, 'w', 'f16', randomF32(rng, N * K, 0.1), N, K);
  try {
    const x = scope.f32('x', randomF32(rng, M * K, 1));
    const y = scope.empty('y', M * N);
    const median = async (record: () => void): Promise<number> => {
      const times: number[] = [];
      for (let i = 0; i <= 3; i++) {
        const start = performance.now();
        record();
        await rec.finish();
        if (i > 0) times.push(performance.now() - start);
      }
      times.sort((p, q) => p - q);
      return (2 * M * N * K) / (times[1] * 1e6);
    };
    const forward = await median(() => forwardOp.encode(rec, { out: y, x, w: weight, M, variant: 'v1' }));
    const dx = await median(() => op.dx(rec, { dx: x, dy: y, w: weight, M, accumulate: false }));
    return { dx, forward };
  } finally {
    destroyPackedWeight(weight);
    rec.destroy();
    scope.destroy();
  }
}
