/**
 * Attention check: several sequences of different lengths (1, 37 and 130 tokens: one, one and three key tiles) in
 * sequence slots of one KV cache. Prefill writes all their tokens in one batch and attends causally; then one decode
 * step appends a token to each sequence and attends over the grown cache. Each sequence is compared with
 * `attentionRef` over its own keys; GQA with two query heads per kv head, and a head size that is not a power of 2.
 */
import { createRng } from '../../data/rng.ts';
import type { GpuContext } from '../../gpu/device.ts';
import { AttentionOp } from '../../gpu/kernels/attention.ts';
import { KvCacheOp } from '../../gpu/kernels/kvcache.ts';
import { Recorder } from '../../gpu/recorder.ts';
import { attentionRef } from '../../model/reference/ops.ts';
import { compare, type Comparison } from '../compare.ts';
import { Scope, randomF32 } from '../util.ts';

const TOL = { abs: 2e-6, rel: 1e-5 };

interface Shape {
  H: number;
  KVH: number;
  D: number;
}

export async function checkAttention(ctx: GpuContext, seed: number): Promise<Comparison[]> {
  const results: Comparison[] = [];
  for (const shape of [{ H: 4, KVH: 2, D: 32 }, { H: 3, KVH: 1, D: 80 }] as Shape[]) results.push(...(await runShape(ctx, shape, seed)));
  return results;
}

async function runShape(ctx: GpuContext, { H, KVH, D }: Shape, seed: number): Promise<Comparison[]> {
  const [attention, kvcache] = await Promise.all([AttentionOp.create(ctx), KvCacheOp.create(ctx)]);
  const lengths = [37, 1, 130];
  const B = lengths.length;
  const S = 160;
  const rng = createRng(seed * 31 + D);
  // Per sequence, the keys/values/queries of every position it will have (prefill tokens + one decode token).
  const seqs = lengths.map((n) => ({
    q: randomF32(rng, (n + 1) * H * D, 1),
    k: randomF32(rng, (n + 1) * KVH * D, 1),
    v: randomF32(rng, (n + 1) * KVH * D, 1),
  }));
  const rows = (a: Float64Array, width: number, from: number, to: number) => a.subarray(from * width, to * width);

  // Prefill batch: all tokens of all sequences, packed; decode batch: one token per sequence at position n.
  const batches = [
    { name: 'prefill', tokens: lengths.flatMap((n, b) => Array.from({ length: n }, (_, p) => ({ b, p }))) },
    { name: 'decode', tokens: lengths.map((n, b) => ({ b, p: n })) },
  ];
  const scope = new Scope(ctx);
  const rec = new Recorder(ctx, 'check.attention');
  const results: Comparison[] = [];
  try {
    const kCache = scope.empty('kCache', B * S * KVH * D);
    const vCache = scope.empty('vCache', B * S * KVH * D);
    for (const batch of batches) {
      const T = batch.tokens.length;
      const pack = (key: 'q' | 'k' | 'v', width: number) => {
        const out = new Float64Array(T * width);
        batch.tokens.forEach(({ b, p }, t) => out.set(rows(seqs[b][key], width, p, p + 1), t * width));
        return out;
      };
      const slots = scope.u32('slots', batch.tokens.map((x) => x.b));
      const positions = scope.u32('positions', batch.tokens.map((x) => x.p));
      const out = scope.empty('out', T * H * D);
      const lse = scope.empty('lse', T * H);
      kvcache.write(rec, { k: scope.f32('k', pack('k', KVH * D)), v: scope.f32('v', pack('v', KVH * D)), slots, positions, kCache, vCache, T, KVH, D, S, B });
      attention.encode(rec, { out, lse, q: scope.f32('q', pack('q', H * D)), kCache, vCache, slots, positions, T, H, KVH, D, S, B });
      await rec.finish();
      const got = await scope.read(out, T * H * D);

      // Reference, one sequence at a time over its own keys 0..(last position), gathered into the batch's order.
      const ref = new Float64Array(T * H * D);
      for (let b = 0; b < B; b++) {
        const mine = batch.tokens.map((x, t) => ({ ...x, t })).filter((x) => x.b === b);
        const keys = Math.max(...mine.map((x) => x.p)) + 1;
        const q = new Float64Array(mine.length * H * D);
        mine.forEach((x, i) => q.set(rows(seqs[b].q, H * D, x.p, x.p + 1), i * H * D));
        const o = new Float64Array(mine.length * H * D);
        attentionRef(o, q, rows(seqs[b].k, KVH * D, 0, keys), rows(seqs[b].v, KVH * D, 0, keys), mine.map((x) => x.p), mine.length, keys, H, KVH, D);
        mine.forEach((x, i) => ref.set(o.subarray(i * H * D, (i + 1) * H * D), x.t * H * D));
      }
      results.push(compare(`attention ${batch.name}`, `seqs=${lengths.map((n) => (batch.name === 'decode' ? n + 1 : n)).join(',')} T=${T} H=${H} KVH=${KVH} D=${D}`, got, ref, TOL));
    }
    return results;
  } finally {
    rec.destroy();
    scope.destroy();
  }
}
