/**
 * matmul check: every variant (v0 simple, v1 tiled, v2 few-row) against `matmulRef` on fresh random inputs — with and without
 * bias, with a LoRA branch, a single-row (decode) shape, a weight split into three row chunks, a K that is no multiple
 * of 4, rows of x wider than K — the LoRA identity (with B = 0 the output equals the LoRA-free output bit for bit), and equal bits from all
 * variants; v2 both ways where K allows it, reading x in quads (matmul-x4.wgsl, the default) and one value at a time.
 * Where the device has `subgroups`, the decode variant v3 (matmul-subgroups.wgsl) on every case too, against the
 * reference (its sums run in another order, so not bit-equal to v0–v2), and a row's v3 result equal bit for bit
 * whether it is computed alone or among other rows (batched decode == single-sequence decode). Where it has
 * `shader-f16`, the f16-product variant v2h (matmul-f16.wgsl) on every case, at TOL_F16 (x rounded to f16).
 */
import { createRng } from '../../data/rng.ts';
import { MatmulOp, v2ReadsQuads, type MatmulVariant } from '../../gpu/kernels/matmul.ts';
import { Recorder } from '../../gpu/recorder.ts';
import type { GpuContext } from '../../gpu/device.ts';
import { matmulRef } from '../../model/reference/ops.ts';
import { compare, compareExact, type Comparison } from '../compare.ts';
import { Scope, randomF16, randomF32 } from '../util.ts';

const TOL = { abs: 2e-5, rel: 1e-4 };
/** v2h rounds x to f16 and each pair product to f16 (relative 2^-11 each): ~1e-3 of Σ|x·w| (≈ 2–3 here). */
const TOL_F16 = { abs: 4e-3, rel: 4e-3 };

interface Case {
  M: number;
  N: number;
  K: number;
  bias: boolean;
  rank: number;
  /** Split the weight into chunks of at most this many rows. */
  chunkRows?: number;
  /** Row stride of x (default K); the columns past K hold other values, which no output may read. */
  ldx?: number;
}

const CASES: Case[] = [
  { M: 37, N: 96, K: 80, bias: false, rank: 0 },
  { M: 70, N: 130, K: 48, bias: true, rank: 0 },
  { M: 37, N: 96, K: 80, bias: true, rank: 4 },
  { M: 1, N: 200, K: 64, bias: false, rank: 8 },
  { M: 19, N: 100, K: 36, bias: true, rank: 2, chunkRows: 40 },
  { M: 3, N: 151936 / 8, K: 64, bias: false, rank: 0 },
  // K not a multiple of 4: v2 reads x one value at a time (v2ReadsQuads).
  { M: 21, N: 40, K: 38, bias: true, rank: 3 },
  // Rows of x wider than K (every variant and lora_down step over them by ldx).
  { M: 13, N: 24, K: 32, bias: false, rank: 2, ldx: 40 },
];

export async function checkMatmul(ctx: GpuContext, seed: number, note: (text: string) => void = () => {}): Promise<Comparison[]> {
  const op = await MatmulOp.create(ctx);
  const results: Comparison[] = [];
  if (op.hasSubgroups) {
    // Small-N cases: SwiftShader runs v3's one-workgroup-per-column grid very slowly at N = 18,992.
    for (const c of CASES.filter((x) => x.N <= 1024)) results.push(...(await runCase(ctx, op, c, 'v3', seed))[0]);
    results.push(await checkRowIndependence(ctx, op, seed));
  } else {
    note('no subgroups feature on this device: matmul v3 not compiled, v2 is the decode variant');
  }
  if (op.compiled('f16', 'v2h')) {
    for (const c of CASES) results.push(...(await runCase(ctx, op, c, 'v2h', seed))[0]);
  } else {
    note('no shader-f16 on this device: matmul v2h (f16 products) not compiled, so unchecked here');
  }
  for (const c of CASES) {
    const outputs: Float32Array[] = [];
    for (const variant of ['v0', 'v1', 'v2'] as MatmulVariant[]) {
      const [result, out] = await runCase(ctx, op, c, variant, seed);
      results.push(...result);
      outputs.push(out);
    }
    const shape = `M=${c.M} N=${c.N} K=${c.K}${c.ldx ? ` ldx=${c.ldx}` : ''}`;
    results.push(compareExact('matmul v0 == v1 == v2 (bits)', shape, outputs[0], outputs[1]), compareExact('matmul v1 == v2 (bits)', shape, outputs[1], outputs[2]));
    if (v2ReadsQuads(c.K, c.ldx ?? c.K)) {
      // v2 above read x in quads (matmul-x4.wgsl); the one-value-at-a-time kernel must give the same bits.
      const [result, out] = await runCase(ctx, op, c, 'v2', seed, false);
      results.push(...result, compareExact('matmul v2 quads == v2 single loads (bits)', shape, outputs[2], out));
    }
  }
  return results;
}

/** v3 on 5 rows, then on row 3 alone: the row's bits must not depend on its neighbours. */
async function checkRowIndependence(ctx: GpuContext, op: MatmulOp, seed: number): Promise<Comparison> {
  const [M, N, K] = [5, 70, 96];
  const rng = createRng(seed * 13 + 5);
  const x = randomF32(rng, M * K, 1);
  const w = randomF16(rng, N * K, 1 / Math.sqrt(K));
  const scope = new Scope(ctx);
  const rec = new Recorder(ctx, 'check.matmul-rows');
  try {
    const wb = scope.weight('w', w, N, K);
    const all = scope.empty('all', M * N);
    const one = scope.empty('one', N);
    op.encode(rec, { out: all, x: scope.f32('x', x), w: wb, M, variant: 'v3' });
    op.encode(rec, { out: one, x: scope.f32('x3', x.subarray(3 * K, 4 * K)), w: wb, M: 1, variant: 'v3' });
    await rec.finish();
    return compareExact('matmul.v3 row alone == row among 5 (bits)', `N=${N} K=${K}`, await scope.read(one, N), (await scope.read(all, M * N)).subarray(3 * N, 4 * N));
  } finally {
    rec.destroy();
    scope.destroy();
  }
}

async function runCase(ctx: GpuContext, op: MatmulOp, c: Case, variant: MatmulVariant, seed: number, quads = true): Promise<[Comparison[], Float32Array]> {
  const { M, N, K, rank } = c;
  const rng = createRng(seed * 7919 + M * 31 + N);
  const x = randomF32(rng, M * K, 1);
  const w = randomF16(rng, N * K, 1 / Math.sqrt(K));
  const bias = c.bias ? randomF32(rng, N, 0.5) : null;
  const a = randomF32(rng, rank * K, 1 / Math.sqrt(K));
  const b = randomF32(rng, N * rank, 0.5);
  const scale = rank > 0 ? 2 / rank : 0;

  const ref = new Float64Array(M * N);
  matmulRef(ref, x, w, bias, M, N, K);
  if (rank > 0) {
    const u = new Float64Array(M * rank);
    matmulRef(u, x, a, null, M, rank, K);
    const delta = new Float64Array(M * N);
    matmulRef(delta, u, b, null, M, N, rank);
    for (let i = 0; i < ref.length; i++) ref[i] += scale * delta[i];
  }

  // x as bound: rows ldx apart, the columns past K filled with values of their own.
  const ldx = c.ldx ?? K;
  const padded = randomF32(rng, M * ldx, 1);
  for (let m = 0; m < M; m++) padded.set(x.subarray(m * K, (m + 1) * K), m * ldx);

  const scope = new Scope(ctx);
  const rec = new Recorder(ctx, 'check.matmul');
  try {
    const xb = scope.f32('x', padded);
    const wb = scope.weight('w', w, N, K, c.chunkRows ? c.chunkRows * K * 2 : undefined);
    const biasb = bias ? scope.f32('bias', bias) : null;
    const out = scope.empty('out', M * N);
    const lora = rank > 0 ? { a: scope.f32('A', a), b: scope.f32('B', b), u: scope.empty('u', M * rank), rank, scale } : null;
    op.encode(rec, { out, x: xb, w: wb, M, ldx, bias: biasb, lora, variant, quads });
    await rec.finish();
    const got = await scope.read(out, M * N);
    const shape = `M=${M} N=${N} K=${K}${c.ldx ? ` ldx=${c.ldx}` : ''}${c.bias ? ' bias' : ''}${rank ? ` R=${rank}` : ''}${wb.chunks.length > 1 ? ` chunks=${wb.chunks.length}` : ''}`;
    const name = variant === 'v2' && !quads ? 'matmul.v2 (single loads)' : `matmul.${variant}`;
    const results = [compare(name, shape, got, ref, variant === 'v2h' ? TOL_F16 : TOL)];
    if (lora) {
      // The LoRA identity: B = 0 must leave the base output unchanged, bit for bit.
      const zeroB = scope.f32('B0', new Float64Array(N * rank));
      const base = scope.empty('base', M * N);
      const withZero = scope.empty('withZero', M * N);
      op.encode(rec, { out: base, x: xb, w: wb, M, ldx, bias: biasb, variant, quads });
      op.encode(rec, { out: withZero, x: xb, w: wb, M, ldx, bias: biasb, variant, quads, lora: { ...lora, b: zeroB } });
      await rec.finish();
      results.push(compareExact(`${name} LoRA B=0 == base`, shape, await scope.read(withZero, M * N), await scope.read(base, M * N)));
    }
    return [results, got];
  } finally {
    rec.destroy();
    scope.destroy();
  }
}
