/**
 * Attention check, for each KV-cache format (kv-format.ts: packed f16, the default, and f32): several sequences of
 * different lengths (37, 1 and 130 tokens: one, one and three key tiles) in sequence slots of one KV cache, slot ≠
 * sequence index. Prefill writes all their tokens in one batch and attends causally; then one decode step appends a
 * token to each sequence and attends over the grown cache (the longest one writes position S − 1, the cache's last
 * row). Each sequence is compared with `attentionRef` over its own keys, given the K/V as the cache stores them
 * (f16-rounded for the f16 cache). The cache starts as garbage and its whole contents, decoded from the format's
 * words, are compared after each batch with the written rows replaced: a wrong pair packing, row or slot index, or a
 * write past a row shows there, even where the attention output would hide it. Shapes: GQA with two query heads per
 * kv head; an odd number of pairs per head (D = 78) and a head size needing both of an invocation's pairs (D = 202).
 * Where D ≤ ATTENTION_ROW_MAX_D the 'row' variant runs on the same batch too: its output against the reference, and
 * its output and log-sum-exp equal to the workgroup variant's bit for bit.
 */
import { createRng } from '../../data/rng.ts';
import type { GpuContext } from '../../gpu/device.ts';
import { ATTENTION_ROW_MAX_D, AttentionOp } from '../../gpu/kernels/attention.ts';
import { KvCacheOp } from '../../gpu/kernels/kvcache.ts';
import { KV_CACHE_FORMATS, type KvCacheFormat } from '../../gpu/kv-format.ts';
import { Recorder } from '../../gpu/recorder.ts';
import { attentionRef } from '../../model/reference/ops.ts';
import { compare, compareExact, type Comparison } from '../compare.ts';
import { kvCacheBuffer, kvStored, readKvCache } from '../kv-cache.ts';
import { Scope, randomF32 } from '../util.ts';

const TOL = { abs: 2e-6, rel: 1e-5 };
/** The cache holds exactly the stored values (pack2x16float rounds to nearest even, as f16.ts does). */
const CACHE_TOL = { abs: 0, rel: 0 };

interface Shape {
  H: number;
  KVH: number;
  D: number;
}

const SHAPES: Shape[] = [
  { H: 4, KVH: 2, D: 32 },
  { H: 3, KVH: 1, D: 78 },
  { H: 2, KVH: 2, D: 202 },
];

export async function checkAttention(ctx: GpuContext, seed: number): Promise<Comparison[]> {
  const [attention, kvcache] = await Promise.all([AttentionOp.create(ctx), KvCacheOp.create(ctx)]);
  const results: Comparison[] = [];
  for (const format of KV_CACHE_FORMATS) {
    for (const shape of SHAPES) results.push(...(await runShape(ctx, { attention, kvcache }, format, shape, seed)));
  }
  return results;
}

interface Ops {
  attention: AttentionOp;
  kvcache: KvCacheOp;
}

async function runShape(ctx: GpuContext, ops: Ops, format: KvCacheFormat, { H, KVH, D }: Shape, seed: number): Promise<Comparison[]> {
  const lengths = [37, 1, 130];
  const B = lengths.length;
  const S = Math.max(...lengths) + 1;
  const slotOf = (b: number) => (b + 1) % B;
  const rng = createRng(seed * 31 + D);
  // Per sequence, the keys/values/queries of every position it will have (prefill tokens + one decode token).
  const seqs = lengths.map((n) => ({
    q: randomF32(rng, (n + 1) * H * D, 1),
    k: randomF32(rng, (n + 1) * KVH * D, 1),
    v: randomF32(rng, (n + 1) * KVH * D, 1),
  }));
  const rows = (a: Float64Array, width: number, from: number, to: number) => a.subarray(from * width, to * width);
  const row = KVH * D;

  // Prefill batch: all tokens of all sequences, packed; decode batch: one token per sequence at position n.
  const batches = [
    { name: 'prefill', tokens: lengths.flatMap((n, b) => Array.from({ length: n }, (_, p) => ({ b, p }))) },
    { name: 'decode', tokens: lengths.map((n, b) => ({ b, p: n })) },
  ];
  const scope = new Scope(ctx);
  const rec = new Recorder(ctx, 'check.attention');
  const results: Comparison[] = [];
  try {
    // Garbage of the cache's own format, then the expected contents, row by row as the batches write them.
    const wantK = kvStored(format, randomF32(rng, B * S * row, 100));
    const wantV = kvStored(format, randomF32(rng, B * S * row, 100));
    const kCache = kvCacheBuffer(scope, format, 'kCache', wantK);
    const vCache = kvCacheBuffer(scope, format, 'vCache', wantV);
    for (const batch of batches) {
      const T = batch.tokens.length;
      const pack = (key: 'q' | 'k' | 'v', width: number) => {
        const out = new Float64Array(T * width);
        batch.tokens.forEach(({ b, p }, t) => out.set(rows(seqs[b][key], width, p, p + 1), t * width));
        return out;
      };
      const slots = scope.u32('slots', batch.tokens.map((x) => slotOf(x.b)));
      const positions = scope.u32('positions', batch.tokens.map((x) => x.p));
      const out = scope.empty('out', T * H * D);
      const lse = scope.empty('lse', T * H);
      ops.kvcache.write(rec, { k: scope.f32('k', pack('k', row)), v: scope.f32('v', pack('v', row)), slots, positions, kCache, vCache, T, KVH, D, S, B, format });
      const qb = scope.f32('q', pack('q', H * D));
      ops.attention.encode(rec, { out, lse, q: qb, kCache, vCache, slots, positions, T, H, KVH, D, S, B, format, variant: 'workgroup' });
      const withRow = D <= ATTENTION_ROW_MAX_D;
      const outRow = scope.empty('out.row', T * H * D);
      const lseRow = scope.empty('lse.row', T * H);
      if (withRow) ops.attention.encode(rec, { out: outRow, lse: lseRow, q: qb, kCache, vCache, slots, positions, T, H, KVH, D, S, B, format, variant: 'row' });
      await rec.finish();
      const [got, gotK, gotV] = await Promise.all([scope.read(out, T * H * D), readKvCache(scope, format, kCache, B * S * row), readKvCache(scope, format, vCache, B * S * row)]);

      // Reference, one sequence at a time over its own (stored) keys 0..(last position), gathered into the batch's order.
      const ref = new Float64Array(T * H * D);
      for (let b = 0; b < B; b++) {
        const mine = batch.tokens.map((x, t) => ({ ...x, t })).filter((x) => x.b === b);
        const keys = Math.max(...mine.map((x) => x.p)) + 1;
        const q = new Float64Array(mine.length * H * D);
        mine.forEach((x, i) => q.set(rows(seqs[b].q, H * D, x.p, x.p + 1), i * H * D));
        const o = new Float64Array(mine.length * H * D);
        const k = kvStored(format, rows(seqs[b].k, row, 0, keys));
        const v = kvStored(format, rows(seqs[b].v, row, 0, keys));
        attentionRef(o, q, k, v, mine.map((x) => x.p), mine.length, keys, H, KVH, D);
        mine.forEach((x, i) => ref.set(o.subarray(i * H * D, (i + 1) * H * D), x.t * H * D));
      }
      for (const { b, p } of batch.tokens) {
        const at = (slotOf(b) * S + p) * row;
        wantK.set(kvStored(format, rows(seqs[b].k, row, p, p + 1)), at);
        wantV.set(kvStored(format, rows(seqs[b].v, row, p, p + 1)), at);
      }
      const shape = `${format} cache seqs=${lengths.map((n) => (batch.name === 'decode' ? n + 1 : n)).join(',')} T=${T} H=${H} KVH=${KVH} D=${D} S=${S}`;
      results.push(compare(`attention ${batch.name}`, shape, got, ref, TOL));
      if (withRow) {
        const [gotRow, lseW, lseR] = await Promise.all([scope.read(outRow, T * H * D), scope.read(lse, T * H), scope.read(lseRow, T * H)]);
        results.push(compare(`attention.row ${batch.name}`, shape, gotRow, ref, TOL));
        results.push(compareExact(`attention.row == workgroup (bits) ${batch.name}`, shape, gotRow, got), compareExact(`attention.row == workgroup (bits) ${batch.name}: lse`, shape, lseR, lseW));
      }
      results.push(compare(`kvcache.write ${batch.name}: whole k cache`, shape, gotK, wantK, CACHE_TOL));
      results.push(compare(`kvcache.write ${batch.name}: whole v cache`, shape, gotV, wantV, CACHE_TOL));
    }
    return results;
  } finally {
    rec.destroy();
    scope.destroy();
  }
}
