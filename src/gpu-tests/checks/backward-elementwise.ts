/**
 * Checks of the row-wise backward kernels and the optimiser against the float64 reference on fresh random inputs:
 * rmsnorm backward (layer-norm and q/k-norm shapes, dx written and accumulated), swiglu backward, the chosen-token
 * log-prob backward in place on a chunk of logits (after its forward, which provides the lse), and the fused AdamW
 * with the GPU gradient norm over several tensors of odd sizes for 3 steps, with and without clipping.
 */
import { createRng } from '../../data/rng.ts';
import { writeBuffer } from '../../gpu/buffers.ts';
import type { GpuContext } from '../../gpu/device.ts';
import type { AdamWSettings } from '../../gpu/engine/train-ops.ts';
import { LogSoftmaxOp } from '../../gpu/kernels/logsoftmax.ts';
import { OptimizerOp } from '../../gpu/kernels/optim.ts';
import { RmsnormBackwardOp, type RmsnormBackwardVariant } from '../../gpu/kernels/rmsnorm-backward.ts';
import { SwigluBackwardOp } from '../../gpu/kernels/swiglu-backward.ts';
import { Recorder } from '../../gpu/recorder.ts';
import { rmsnormBackwardRef, swigluBackwardRef, tokenLogProbsBackwardRef } from '../../model/reference/ops.ts';
import { adamwStepRef, type AdamTensorRef } from '../../model/reference/optim.ts';
import { compare, compareExact, type Comparison } from '../compare.ts';
import { Scope, randomF32 } from '../util.ts';

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

/** Both variants at every size (the op picks one by C; each must be right for any C), writing and adding. */
const VARIANT_CASES: readonly (readonly [RmsnormBackwardVariant, boolean])[] = [
  ['workgroup', false],
  ['workgroup', true],
  ['row', false],
  ['row', true],
];

export async function checkRmsnormBackward(ctx: GpuContext, seed: number): Promise<Comparison[]> {
  const op = await RmsnormBackwardOp.create(ctx);
  const results: Comparison[] = [];
  const cases = [
    [37, 96, 'layer norm'],
    [20, 16, 'q/k norm (T·H rows of D)'],
    [150, 16, 'q/k norm over 64 rows (several row-variant workgroups)'],
    [3, 1000, 'C not a multiple of 64'],
  ] as const;
  for (const [M, C, label] of cases) {
    for (const [variant, accumulate] of VARIANT_CASES) {
      const rng = createRng(seed * 103 + M * 7 + C + (accumulate ? 1 : 0));
      const x = randomF32(rng, M * C, 3);
      const w = randomF32(rng, C, 1);
      const dy = randomF32(rng, M * C, 1);
      const dx0 = randomF32(rng, M * C, 1);
      const eps = 1e-6;
      const ref = accumulate ? Float64Array.from(dx0) : new Float64Array(M * C);
      rmsnormBackwardRef(ref, null, dy, x, w, M, C, eps);
      const got = await withScope(ctx, 'check.rmsnorm_backward', async (scope, rec) => {
        // Without accumulate the old contents (dx0) must be overwritten, so both cases start from dx0.
        const dx = scope.f32('dx', dx0);
        op.encode(rec, { dx, dy: scope.f32('dy', dy), x: scope.f32('x', x), weight: scope.f32('w', w), M, C, eps, accumulate, variant });
        await rec.finish();
        return scope.read(dx, M * C);
      });
      results.push(compare(`rmsnorm_backward.${variant} ${label}${accumulate ? ' +=' : ''}`, `M=${M} C=${C}`, got, ref, { abs: 1e-5, rel: 1e-5 }));
    }
  }
  return results;
}

export async function checkSwigluBackward(ctx: GpuContext, seed: number): Promise<Comparison[]> {
  const op = await SwigluBackwardOp.create(ctx);
  const [M, I] = [13, 200];
  const n = M * I;
  const rng = createRng(seed * 131 + 5);
  const gate = randomF32(rng, n, 12);
  const up = randomF32(rng, n, 2);
  const dact = randomF32(rng, n, 1);
  const refGate = new Float64Array(n);
  const refUp = new Float64Array(n);
  swigluBackwardRef(refGate, refUp, dact, gate, up, M, I);
  const [dgate, dup] = await withScope(ctx, 'check.swiglu_backward', async (scope, rec) => {
    // Stale contents that a written (not accumulated) gradient must replace.
    const dg = scope.f32('dgate', randomF32(rng, n, 100));
    const du = scope.f32('dup', randomF32(rng, n, 100));
    op.encode(rec, { dgate: dg, dup: du, dact: scope.f32('dact', dact), gate: scope.f32('gate', gate), up: scope.f32('up', up), n });
    await rec.finish();
    return [await scope.read(dg, n), await scope.read(du, n)];
  });
  const shape = `M=${M} I=${I} gate in ±12`;
  return [compare('swiglu_backward dgate', shape, dgate, refGate, { abs: 1e-6, rel: 1e-5 }), compare('swiglu_backward dup', shape, dup, refUp, { abs: 1e-6, rel: 1e-5 })];
}

export async function checkTokenLogprobBackward(ctx: GpuContext, seed: number): Promise<Comparison[]> {
  const op = await LogSoftmaxOp.create(ctx);
  const results: Comparison[] = [];
  for (const [M, V, spread] of [[6, 1000, 10], [3, 1037, 40]] as const) {
    const rng = createRng(seed * 43 + V);
    const logits = randomF32(rng, M * V, spread);
    const targets = Array.from({ length: M }, (_, m) => (m === 0 ? 0 : m === 1 ? V - 1 : Math.floor(rng.next() * V)));
    const dlogprob = randomF32(rng, M, 1);
    dlogprob[M - 1] = 0; // a masked-out token: its row must become exactly zero
    const ref = new Float64Array(M * V);
    tokenLogProbsBackwardRef(ref, dlogprob, logits, targets, M, V);
    const got = await withScope(ctx, 'check.token_logprob_backward', async (scope, rec) => {
      const lb = scope.f32('logits', logits);
      const lse = scope.empty('lse', M);
      const tb = scope.u32('targets', targets);
      op.tokenLogprob(rec, { logprob: scope.empty('logprob', M), lse, logits: lb, targets: tb, M, V });
      op.tokenLogprobBackward(rec, { logits: lb, lse, targets: tb, dlogprob: scope.f32('dlogprob', dlogprob), M, V });
      await rec.finish();
      return scope.read(lb, M * V);
    });
    results.push(compare('token_logprob_backward (in place)', `M=${M} V=${V} logits in ±${spread}`, got, ref, { abs: 2e-6, rel: 1e-5 }));
  }
  return results;
}

// 1 … 4099: fewer than 64 partial workgroups (the rest of the tensor's slots zeroed); 16385 > 64 partials × 256:
// the partial kernel's stride loop runs.
const ADAM_SIZES = [1, 37, 515, 4099, 16385];

/** An `AdamTensor` whose buffers are whole GPUBuffers (this check writes and reads them). */
interface TensorBuffers {
  param: GPUBuffer;
  grad: GPUBuffer;
  m: GPUBuffer;
  v: GPUBuffer;
  n: number;
}

export async function checkAdamw(ctx: GpuContext, seed: number, note: (text: string) => void): Promise<Comparison[]> {
  const op = await OptimizerOp.create(ctx);
  const results: Comparison[] = [];
  for (const clipping of [false, true]) {
    const rng = createRng(seed * 59 + (clipping ? 1 : 0));
    const refs: AdamTensorRef[] = ADAM_SIZES.map((n) => ({ param: randomF32(rng, n, 1), grad: new Float64Array(n), m: new Float64Array(n), v: new Float64Array(n) }));
    const grads = [1, 2, 3].map(() => ADAM_SIZES.map((n) => randomF32(rng, n, 0.05)));
    // Clip to half the first step's norm, so the factor is active on every step.
    const firstNorm = Math.sqrt(grads[0].reduce((s, g) => s + g.reduce((t, x) => t + x * x, 0), 0));
    const base: Omit<AdamWSettings, 'step'> = { lr: 1e-2, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.1, maxGradNorm: clipping ? Math.fround(0.5 * firstNorm) : 0 };
    const label = `adamw ${clipping ? 'clip' : 'no clip'}`;
    const shape = `sizes ${ADAM_SIZES.join(',')} wd=0.1`;
    await withScope(ctx, 'check.adamw', async (scope, rec) => {
      const tensors: TensorBuffers[] = ADAM_SIZES.map((n, i) => ({
        param: scope.f32(`param${i}`, refs[i].param),
        grad: scope.empty(`grad${i}`, n),
        m: scope.f32(`m${i}`, new Float32Array(n)),
        v: scope.f32(`v${i}`, new Float32Array(n)),
        n,
      }));
      // Filled with garbage: the partial slots of the workgroups a small tensor does not dispatch must be zeroed.
      const normBytes = op.normBufferBytes(tensors.length);
      const norm = scope.f32('norm', new Float32Array(normBytes / 4).fill(1e3));
      const normAgain = scope.f32('norm-again', new Float32Array(normBytes / 4).fill(-7));
      for (let step = 1; step <= 3; step++) {
        tensors.forEach((t, i) => {
          writeBuffer(ctx, t.grad, Float32Array.from(grads[step - 1][i]));
          refs[i].grad.set(grads[step - 1][i]);
        });
        const settings: AdamWSettings = { ...base, step };
        op.gradNorm(rec, { tensors, norm });
        if (step === 1) op.gradNorm(rec, { tensors, norm: normAgain });
        op.adamw(rec, { tensors, norm, settings });
        await rec.finish();
        const { normSquared, clip } = adamwStepRef(refs, settings);
        const gotNorm = await scope.read(norm, 2);
        results.push(compare(`${label} ‖g‖², ‖g‖ step ${step}`, shape, gotNorm, [normSquared, Math.sqrt(normSquared)], { abs: 0, rel: 1e-5 }));
        if (step === 1) results.push(compareExact(`${label} grad_norm deterministic`, shape, gotNorm, await scope.read(normAgain, 2)));
        note(`${label} step ${step}: ‖g‖ = ${Math.sqrt(normSquared).toFixed(6)}, clip = ${clip.toFixed(6)}`);
      }
      const cat = async (pick: (t: TensorBuffers) => GPUBuffer): Promise<Float32Array> => {
        const parts = await Promise.all(tensors.map((t) => scope.read(pick(t), t.n)));
        const out = new Float32Array(parts.reduce((s, p) => s + p.length, 0));
        let o = 0;
        for (const p of parts) {
          out.set(p, o);
          o += p.length;
        }
        return out;
      };
      const catRef = (pick: (t: AdamTensorRef) => Float64Array): Float64Array => {
        const out = new Float64Array(refs.reduce((s, r) => s + r.param.length, 0));
        let o = 0;
        for (const r of refs) {
          out.set(pick(r), o);
          o += r.param.length;
        }
        return out;
      };
      // Absolute floors at about 1e-6 of each quantity's largest value (|m| ≲ 1e-2, |v| ≲ 1e-5 here): m and v are
      // sums of terms of both signs, so an element near zero carries the f32 rounding of its larger terms.
      results.push(
        compare(`${label} params after 3 steps`, shape, await cat((t) => t.param), catRef((r) => r.param), { abs: 1e-6, rel: 1e-5 }),
        compare(`${label} m after 3 steps`, shape, await cat((t) => t.m), catRef((r) => r.m), { abs: 1e-8, rel: 1e-5 }),
        compare(`${label} v after 3 steps`, shape, await cat((t) => t.v), catRef((r) => r.v), { abs: 1e-11, rel: 1e-5 }),
        compare(`${label} grads zeroed`, shape, await cat((t) => t.grad), catRef((r) => r.grad), { abs: 0, rel: 0 }),
      );
    });
  }
  return results;
}
