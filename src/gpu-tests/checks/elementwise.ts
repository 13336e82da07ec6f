/**
 * Checks of the row-wise and elementwise kernels against the float64 reference: rmsnorm (layer-norm and q/k-norm
 * shapes), rope forward and backward (positions up to 32767, from the f64 table), the embedding gather (a table split
 * into three chunks; exact), swiglu, the residual adds, and log-softmax (full rows and chosen-token log-probs).
 */
import { createRng } from '../../data/rng.ts';
import type { GpuContext } from '../../gpu/device.ts';
import { EmbeddingOp } from '../../gpu/kernels/embedding.ts';
import { LogSoftmaxOp, TOKEN_ROW_MAX_V, type TokenLogprobVariant } from '../../gpu/kernels/logsoftmax.ts';
import { ResidualOp } from '../../gpu/kernels/residual.ts';
import { RmsnormOp, type RmsnormVariant } from '../../gpu/kernels/rmsnorm.ts';
import { RopeOp } from '../../gpu/kernels/rope.ts';
import { buildRopeTable } from '../../gpu/kernels/rope-table.ts';
import { SwigluOp } from '../../gpu/kernels/swiglu.ts';
import { Recorder } from '../../gpu/recorder.ts';
import { addRef, embeddingRef, logSoftmaxRef, rmsnormRef, ropeBackwardRef, ropeRef, swigluRef } from '../../model/reference/ops.ts';
import { compare, compareExact, type Comparison } from '../compare.ts';
import { Scope, randomF16, randomF32 } from '../util.ts';

/** token_logprob's variants for rows of V logits ('row' only up to TOKEN_ROW_MAX_V: the op refuses it above). */
function tokenVariants(V: number): readonly TokenLogprobVariant[] {
  return V <= TOKEN_ROW_MAX_V ? ['workgroup', 'row'] : ['workgroup'];
}

async function withScope<T>(ctx: GpuContext, label: string, body: (scope: Scope, rec: Recorder) => Promise<T>): Promise<T> {
  const scope = new Scope(ctx);
  const rec = new Recorder(ctx, label);
  try {
    return await body(scope, rec);
  } finally {
    rec.destroy();
    scope.destroy();
  }
}

/** Both variants at every size (the op picks one by C, but each must be right for any C), and equal bits. */
export async function checkRmsnorm(ctx: GpuContext, seed: number): Promise<Comparison[]> {
  const op = await RmsnormOp.create(ctx);
  const results: Comparison[] = [];
  const cases = [
    [37, 96, 'layer norm'],
    [20, 16, 'q/k norm (T·H rows of D)'],
    [150, 16, 'q/k norm over 64 rows (several row-variant workgroups)'],
    [9, 40, 'C below 64, not a power of two'],
    [3, 1000, 'C not a multiple of 64'],
  ] as const;
  for (const [M, C, label] of cases) {
    const outs: Float32Array[] = [];
    for (const variant of ['workgroup', 'row'] as const satisfies readonly RmsnormVariant[]) {
      const rng = createRng(seed * 101 + M + C);
      const x = randomF32(rng, M * C, 3);
      const w = randomF32(rng, C, 1);
      const eps = 1e-6;
      const ref = new Float64Array(M * C);
      rmsnormRef(ref, x, w, M, C, eps);
      const got = await withScope(ctx, 'check.rmsnorm', async (scope, rec) => {
        const out = scope.empty('out', M * C);
        op.encode(rec, { out, x: scope.f32('x', x), weight: scope.f32('w', w), M, C, eps, variant });
        await rec.finish();
        return scope.read(out, M * C);
      });
      results.push(compare(`rmsnorm.${variant} ${label}`, `M=${M} C=${C}`, got, ref, { abs: 1e-5, rel: 1e-5 }));
      outs.push(got);
    }
    results.push(compareExact(`rmsnorm row == workgroup (bits) ${label}`, `M=${M} C=${C}`, outs[1], outs[0]));
  }
  return results;
}

export async function checkRope(ctx: GpuContext, seed: number): Promise<Comparison[]> {
  const op = await RopeOp.create(ctx);
  const results: Comparison[] = [];
  const theta = 1_000_000;
  for (const [T, NH, D, P] of [[7, 4, 32, 64], [9, 2, 64, 32768]] as const) {
    const rng = createRng(seed * 17 + T * NH);
    const x = randomF32(rng, T * NH * D, 1);
    const positions = Array.from({ length: T }, (_, t) => (t === 0 ? P - 1 : Math.floor(rng.next() * P)));
    const table = buildRopeTable(D, theta, P);
    const fwd = Float64Array.from(x);
    ropeRef(fwd, positions, T, NH, D, theta);
    const bwd = Float64Array.from(x);
    ropeBackwardRef(bwd, positions, T, NH, D, theta);
    for (const [backward, ref] of [[false, fwd], [true, bwd]] as const) {
      const got = await withScope(ctx, 'check.rope', async (scope, rec) => {
        const buf = scope.f32('x', x);
        op.encode(rec, { x: buf, positions: scope.u32('positions', positions), table: scope.f32('table', table), T, NH, D, P, backward });
        await rec.finish();
        return scope.read(buf, T * NH * D);
      });
      results.push(compare(`rope ${backward ? 'backward' : 'forward'}`, `T=${T} NH=${NH} D=${D} max pos=${Math.max(...positions)}`, got, ref, { abs: 1e-6, rel: 1e-5 }));
    }
  }
  return results;
}

export async function checkEmbedding(ctx: GpuContext, seed: number): Promise<Comparison[]> {
  const op = await EmbeddingOp.create(ctx);
  const [V, C, T] = [300, 48, 20];
  const rng = createRng(seed * 5 + 3);
  const table = randomF16(rng, V * C, 1);
  const ids = Array.from({ length: T }, (_, t) => (t === 0 ? 0 : t === 1 ? V - 1 : Math.floor(rng.next() * V)));
  const ref = new Float64Array(T * C);
  embeddingRef(ref, table, ids, T, C);
  let chunks = 0;
  const got = await withScope(ctx, 'check.embedding', async (scope, rec) => {
    const weight = scope.weight('embed', table, V, C, 110 * C * 2);
    chunks = weight.chunks.length;
    const out = scope.empty('out', T * C);
    op.encode(rec, { out, ids: scope.u32('ids', ids), table: weight, T });
    await rec.finish();
    return scope.read(out, T * C);
  });
  return [compare('embedding gather (exact)', `V=${V} C=${C} T=${T} chunks=${chunks}`, got, ref, { abs: 0, rel: 0 })];
}

export async function checkSwiglu(ctx: GpuContext, seed: number): Promise<Comparison[]> {
  const op = await SwigluOp.create(ctx);
  const [M, I] = [13, 200];
  const rng = createRng(seed * 13 + 1);
  const gate = randomF32(rng, M * I, 12);
  const up = randomF32(rng, M * I, 2);
  const ref = new Float64Array(M * I);
  swigluRef(ref, gate, up, M, I);
  const got = await withScope(ctx, 'check.swiglu', async (scope, rec) => {
    const out = scope.empty('out', M * I);
    op.encode(rec, { out, gate: scope.f32('gate', gate), up: scope.f32('up', up), n: M * I });
    await rec.finish();
    return scope.read(out, M * I);
  });
  return [compare('swiglu', `M=${M} I=${I} gate in ±12`, got, ref, { abs: 1e-6, rel: 1e-5 })];
}

export async function checkResidual(ctx: GpuContext, seed: number): Promise<Comparison[]> {
  const op = await ResidualOp.create(ctx);
  const n = 70_001;
  const rng = createRng(seed * 29 + 7);
  const a = randomF32(rng, n, 4);
  const b = randomF32(rng, n, 4);
  const ref = new Float64Array(n);
  addRef(ref, a, b, n);
  // f32 addition of f32 inputs is the exact sum rounded once: within half an f32 ulp.
  const tol = { abs: 0, rel: 2 ** -24 };
  return withScope(ctx, 'check.residual', async (scope, rec) => {
    const out = scope.empty('out', n);
    const acc = scope.f32('acc', a);
    const bb = scope.f32('b', b);
    op.add(rec, { out, a: scope.f32('a', a), b: bb, n });
    op.addInPlace(rec, { acc, b: bb, n });
    await rec.finish();
    return [compare('residual add', `n=${n}`, await scope.read(out, n), ref, tol), compare('residual add_inplace', `n=${n}`, await scope.read(acc, n), ref, tol)];
  });
}

/** log_softmax, and token_logprob in both variants: 'workgroup' at every V, 'row' where the op allows it. */
export async function checkLogSoftmax(ctx: GpuContext, seed: number): Promise<Comparison[]> {
  const op = await LogSoftmaxOp.create(ctx);
  const results: Comparison[] = [];
  for (const [M, V, spread] of [[3, 151936, 10], [5, 1000, 40], [70, 512, 20]] as const) {
    const rng = createRng(seed * 41 + V);
    const logits = randomF32(rng, M * V, spread);
    const targets = Array.from({ length: M }, () => Math.floor(rng.next() * V));
    const ref = new Float64Array(M * V);
    logSoftmaxRef(ref, logits, M, V);
    const refToken = targets.map((t, m) => ref[m * V + t]);
    // lse[m] = logits[m, v] − log_softmax[m, v] for any v.
    const refLse = Array.from({ length: M }, (_, m) => logits[m * V] - ref[m * V]);
    const [full, ...tokens] = await withScope(ctx, 'check.logsoftmax', async (scope, rec) => {
      const lb = scope.f32('logits', logits);
      const out = scope.empty('out', M * V);
      const lse = scope.empty('lse', M);
      op.logSoftmax(rec, { out, lse, logits: lb, M, V });
      const tb = scope.u32('targets', targets);
      const perVariant = tokenVariants(V).map((variant) => {
        const lseToken = scope.empty(`lse.${variant}`, M);
        const logprob = scope.empty(`logprob.${variant}`, M);
        op.tokenLogprob(rec, { logprob, lse: lseToken, logits: lb, targets: tb, M, V, variant });
        return { logprob, lseToken };
      });
      await rec.finish();
      const reads: Float32Array[] = [await scope.read(out, M * V)];
      for (const b of perVariant) reads.push(await scope.read(b.logprob, M), await scope.read(b.lseToken, M));
      return reads;
    });
    const shape = `M=${M} V=${V} logits in ±${spread}`;
    results.push(compare('log_softmax', shape, full, ref, { abs: 1e-5, rel: 1e-6 }));
    tokenVariants(V).forEach((variant, i) => {
      results.push(
        compare(`token_logprob.${variant}`, shape, tokens[2 * i], refToken, { abs: 1e-5, rel: 1e-6 }),
        compare(`token_logprob.${variant} lse`, shape, tokens[2 * i + 1], refLse, { abs: 1e-5, rel: 1e-6 }),
      );
    });
  }
  return results;
}
