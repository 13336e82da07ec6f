/**
 * The benches' per-kernel GPU timer (bench/train/gpu-timer.ts) on Dawn in Node (SwiftShader here, which offers
 * 'timestamp-query'): while enabled it counts each dispatch under its kernel's name, the split passes compute exactly
 * what the unsplit ones do, and nothing is counted while it is off. Inputs are random, seeded anew each run (printed).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installDispatchTimer, requestTimestampFeature, type DispatchTimer } from '../../bench/train/gpu-timer.ts';
import { createRng } from '../../src/data/rng.ts';
import { acquireGpu, type GpuContext } from '../../src/gpu/device.ts';
import { ResidualOp } from '../../src/gpu/kernels/residual.ts';
import { SwigluBackwardOp } from '../../src/gpu/kernels/swiglu-backward.ts';
import { nodeGpu } from '../../src/gpu/node/node-gpu.ts';
import { Recorder } from '../../src/gpu/recorder.ts';
import { Scope, randomF32 } from '../../src/gpu-tests/util.ts';
import { testSeed } from '../fixtures/seed.ts';

const seed = testSeed('tests/bench/train-gpu-timer.test.ts');

describe('installDispatchTimer', () => {
  let ctx: GpuContext | null = null;
  let timer: DispatchTimer | null = null;

  beforeAll(async () => {
    const { gpu } = await nodeGpu();
    expect(requestTimestampFeature()).toBe(true);
    ctx = await acquireGpu({ gpu, label: 'gpu-timer-test' });
    timer = installDispatchTimer(ctx.device);
  });
  afterAll(() => ctx?.destroy());

  it('is given a device with timestamp-query (SwiftShader offers it) and installs once per device', () => {
    expect(timer).not.toBeNull();
    expect(installDispatchTimer(ctx!.device)).toBe(timer);
  });

  it('times every dispatch under its kernel while enabled, and the split passes compute the same values', async () => {
    const c = ctx!;
    const t = timer!;
    const [residual, swiglu] = await Promise.all([ResidualOp.create(c), SwigluBackwardOp.create(c)]);
    const rng = createRng(seed);
    const n = 1000;
    const acc0 = randomF32(rng, n, 1);
    const b = randomF32(rng, n, 1);
    const gate = randomF32(rng, n, 2);
    const up = randomF32(rng, n, 2);
    const dact = randomF32(rng, n, 1);
    const scope = new Scope(c);
    const rec = new Recorder(c, 'gpu-timer-test');
    try {
      // The same work twice: once unprofiled, once profiled; the outputs must agree bit for bit.
      const run = async (profiled: boolean) => {
        const acc = scope.f32('acc', acc0);
        const dgate = scope.empty('dgate', n);
        const dup = scope.empty('dup', n);
        const bb = scope.f32('b', b);
        t.enabled = profiled;
        for (let i = 0; i < 3; i++) residual.addInPlace(rec, { acc, b: bb, n });
        swiglu.encode(rec, { dgate, dup, dact: scope.f32('dact', dact), gate: scope.f32('gate', gate), up: scope.f32('up', up), n });
        swiglu.encode(rec, { dgate, dup, dact: scope.f32('dact2', dact), gate: scope.f32('gate2', gate), up: scope.f32('up2', up), n });
        await rec.finish();
        t.enabled = false;
        return Promise.all([scope.read(acc, n), scope.read(dgate, n), scope.read(dup, n)]);
      };
      t.reset();
      const plain = await run(false);
      expect(t.counts).toEqual({ encoders: 0, dispatches: 0 });
      const profiled = await run(true);
      const kernels = await t.drain();
      expect(kernels.map((k) => [k.kernel, k.dispatches]).sort()).toEqual([
        ['residual.add_inplace', 3],
        ['swiglu_backward', 2],
      ]);
      for (const k of kernels) expect(k.seconds).toBeGreaterThanOrEqual(0);
      expect(t.counts.dispatches).toBe(5);
      profiled.forEach((values, i) => expect(Array.from(values)).toEqual(Array.from(plain[i])));
      // acc + 3·b, computed here, so that "the same values" is not just "the same garbage".
      const expected = acc0.map((a, i) => Math.fround(Math.fround(Math.fround(a + b[i]) + b[i]) + b[i]));
      expect(Array.from(profiled[0])).toEqual(Array.from(expected));
    } finally {
      rec.destroy();
      scope.destroy();
    }
  });
});
