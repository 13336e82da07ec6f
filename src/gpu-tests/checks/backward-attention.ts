/**
 * Attention backward check, for each KV-cache format (kv-format.ts: packed f16, the default, and f32): a training
 * batch of several sequences of different lengths packed token after token, each from position 0 in its own cache
 * slot (slots in reverse order, so slot ≠ sequence index; the longest sequence fills its slot to position S − 1).
 * The cache is filled as the forward fills it (KvCacheOp over garbage of the cache's format, so a read outside a
 * sequence's keys shows), `AttentionOp` gives out and lse, and `AttentionBackwardOp` — with dq, dk, dv pre-filled with
 * garbage, as they are written, not accumulated — is compared per sequence with `attentionBackwardRef` on the same
 * f32-rounded inputs, its K/V as the cache stores them (f16-rounded for the f16 cache: dk and dv are the gradients of
 * the stored values, passed straight through).
 * Cases: GQA (H=4, KVH=2) and MHA, D = 16, 18 (an odd number of pairs) and 64, lengths 5, 1, 9; and one case with
 * more than a tile (64) of keys per query and of (query, head) pairs per key, G = 4 and D = 198 (99 pairs: not a
 * multiple of the 64 invocations, and both of an invocation's pairs in the dq pass). Heads of at most
 * ATTENTION_BACKWARD_ROW_MAX_D values run both the tiled and the row passes (the row ones are the default there):
 * D = 16, 18, the toy models' D = 8 with 70 keys, and D = 32 with more jobs (T·H = 4·77) than one workgroup's 64.
 */
import { createRng } from '../../data/rng.ts';
import type { GpuContext } from '../../gpu/device.ts';
import { AttentionOp } from '../../gpu/kernels/attention.ts';
import { ATTENTION_BACKWARD_ROW_MAX_D, AttentionBackwardOp, type AttentionBackwardVariant } from '../../gpu/kernels/attention-backward.ts';
import { KvCacheOp } from '../../gpu/kernels/kvcache.ts';
import { KV_CACHE_FORMATS, type KvCacheFormat } from '../../gpu/kv-format.ts';
import { Recorder } from '../../gpu/recorder.ts';
import { attentionBackwardRef } from '../../model/reference/ops.ts';
import { compare, type Comparison } from '../compare.ts';
import { kvCacheBuffer, kvStored } from '../kv-cache.ts';
import { Scope, randomF32 } from '../util.ts';

const TOL = { abs: 1e-5, rel: 1e-4 };

interface Case {
  H: number;
  KVH: number;
  D: number;
  lengths: number[];
}

const CASES: Case[] = [
  { H: 4, KVH: 2, D: 16, lengths: [5, 1, 9] },
  { H: 4, KVH: 2, D: 64, lengths: [5, 1, 9] },
  { H: 2, KVH: 2, D: 18, lengths: [5, 1, 9] },
  { H: 2, KVH: 2, D: 64, lengths: [5, 1, 9] },
  { H: 4, KVH: 1, D: 198, lengths: [70, 3] },
  { H: 4, KVH: 2, D: 8, lengths: [70, 2, 33] },
  { H: 4, KVH: 4, D: 32, lengths: [40, 37] },
];

/** The passes a case runs: the tiled ones always, the row ones where the head fits them. */
const variantsFor = (D: number): AttentionBackwardVariant[] => (D <= ATTENTION_BACKWARD_ROW_MAX_D ? ['tiled', 'row'] : ['tiled']);

export async function checkBackwardAttention(ctx: GpuContext, seed: number, note: (text: string) => void): Promise<Comparison[]> {
  const [forward, backward, kvcache] = await Promise.all([AttentionOp.create(ctx), AttentionBackwardOp.create(ctx), KvCacheOp.create(ctx)]);
  const results: Comparison[] = [];
  for (const format of KV_CACHE_FORMATS) {
    for (const c of CASES) {
      for (const variant of variantsFor(c.D)) {
        const scope = new Scope(ctx);
        const rec = new Recorder(ctx, 'check.backward-attention');
        try {
          results.push(...(await runCase(scope, rec, { forward, backward, kvcache }, format, variant, c, seed, note)));
        } finally {
          rec.destroy();
          scope.destroy();
        }
      }
    }
  }
  return results;
}

interface Ops {
  forward: AttentionOp;
  backward: AttentionBackwardOp;
  kvcache: KvCacheOp;
}

async function runCase(scope: Scope, rec: Recorder, ops: Ops, format: KvCacheFormat, variant: AttentionBackwardVariant, { H, KVH, D, lengths }: Case, seed: number, note: (text: string) => void): Promise<Comparison[]> {
  const rng = createRng(seed * 7919 + H * 131 + KVH * 17 + D);
  const B = lengths.length;
  const S = Math.max(...lengths);
  const starts = lengths.map((_, b) => lengths.slice(0, b).reduce((a, n) => a + n, 0));
  const T = lengths.reduce((a, n) => a + n, 0);
  const slotOf = (b: number) => B - 1 - b;
  // Packed batch: token t = starts[b] + p is sequence b's position p; all four tensors random in ±1, f32-rounded.
  const q = randomF32(rng, T * H * D, 1);
  const k = randomF32(rng, T * KVH * D, 1);
  const v = randomF32(rng, T * KVH * D, 1);
  const dout = randomF32(rng, T * H * D, 1);
  const tokens = lengths.flatMap((n, b) => Array.from({ length: n }, (_, p) => ({ b, p })));

  const slots = scope.u32('slots', tokens.map((x) => slotOf(x.b)));
  const positions = scope.u32('positions', tokens.map((x) => x.p));
  const seqEnds = scope.u32('seqEnds', tokens.map((x) => starts[x.b] + lengths[x.b]));
  const kCache = kvCacheBuffer(scope, format, 'kCache', randomF32(rng, B * S * KVH * D, 100));
  const vCache = kvCacheBuffer(scope, format, 'vCache', randomF32(rng, B * S * KVH * D, 100));
  const qBuf = scope.f32('q', q);
  const out = scope.empty('out', T * H * D);
  const lse = scope.empty('lse', T * H);
  const dq = scope.f32('dq', randomF32(rng, T * H * D, 100));
  const dk = scope.f32('dk', randomF32(rng, T * KVH * D, 100));
  const dv = scope.f32('dv', randomF32(rng, T * KVH * D, 100));
  ops.kvcache.write(rec, { k: scope.f32('k', k), v: scope.f32('v', v), slots, positions, kCache, vCache, T, KVH, D, S, B, format });
  ops.forward.encode(rec, { out, lse, q: qBuf, kCache, vCache, slots, positions, T, H, KVH, D, S, B, format });
  const before = rec.pending;
  ops.backward.encode(rec, { dq, dk, dv, dout: scope.f32('dout', dout), q: qBuf, out, lse, kCache, vCache, slots, positions, seqEnds, T, H, KVH, D, S, B, format }, variant);
  const dispatches = rec.pending - before;
  await rec.finish();
  const [gotDq, gotDk, gotDv] = await Promise.all([scope.read(dq, T * H * D), scope.read(dk, T * KVH * D), scope.read(dv, T * KVH * D)]);

  // Reference, one sequence at a time over its own (stored) keys (positions 0..n−1 are its tokens), into the packed order.
  const kStored = kvStored(format, k);
  const vStored = kvStored(format, v);
  const refDq = new Float64Array(T * H * D);
  const refDk = new Float64Array(T * KVH * D);
  const refDv = new Float64Array(T * KVH * D);
  lengths.forEach((n, b) => {
    const qw = H * D;
    const kw = KVH * D;
    const span = (a: Float64Array, w: number) => a.subarray(starts[b] * w, (starts[b] + n) * w);
    const ps = Array.from({ length: n }, (_, p) => p);
    attentionBackwardRef(span(refDq, qw), span(refDk, kw), span(refDv, kw), span(dout, qw), span(q, qw), span(kStored, kw), span(vStored, kw), ps, n, n, H, KVH, D);
  });
  const shape = `${variant} passes, ${format} cache seqs=${lengths.join(',')} T=${T} H=${H} KVH=${KVH} D=${D}`;
  note(`attention backward ${shape}: ${dispatches} dispatches`);
  return [
    compare('attention backward dq', shape, gotDq, refDq, TOL),
    compare('attention backward dk', shape, gotDk, refDk, TOL),
    compare('attention backward dv', shape, gotDv, refDv, TOL),
  ];
}
