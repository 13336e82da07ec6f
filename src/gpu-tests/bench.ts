/**
 * Micro-benchmarks run in the harness page: time one op on random data (wall clock around submit + completion,
 * median of `reps` after a warm-up). Used to choose kernel variants per shape and by `bench:*` scripts.
 */
import { createRng } from '../data/rng.ts';
import type { GpuContext } from '../gpu/device.ts';
import { MatmulOp, type MatmulVariant } from '../gpu/kernels/matmul.ts';
import { Recorder } from '../gpu/recorder.ts';
import { Scope, randomF16, randomF32 } from './util.ts';

export interface OpTiming {
  op: string;
  shape: string;
  ms: number;
  gflops: number;
}

/** `quads: false` times v2 reading x one value at a time (matmul.ts `MatmulArgs.quads`). */
export async function timeMatmul(ctx: GpuContext, M: number, N: number, K: number, variant: MatmulVariant, reps = 3, quads = true): Promise<OpTiming> {
  const op = await MatmulOp.create(ctx);
  const rng = createRng(1);
  const scope = new Scope(ctx);
  const rec = new Recorder(ctx, 'bench.matmul');
  try {
    const x = scope.f32('x', randomF32(rng, M * K, 1));
    const w = scope.weight('w', randomF16(rng, N * K, 0.1), N, K);
    const out = scope.empty('out', M * N);
    const times: number[] = [];
    for (let i = 0; i <= reps; i++) {
      const start = performance.now();
      op.encode(rec, { out, x, w, M, variant, quads });
      await rec.finish();
      if (i > 0) times.push(performance.now() - start);
    }
    times.sort((a, b) => a - b);
    const ms = times[Math.floor(times.length / 2)];
    return { op: `matmul.${variant}${variant === 'v2' && !quads ? ' (single loads)' : ''}`, shape: `M=${M} N=${N} K=${K}`, ms, gflops: (2 * M * N * K) / (ms * 1e6) };
  } finally {
    rec.destroy();
    scope.destroy();
  }
}
