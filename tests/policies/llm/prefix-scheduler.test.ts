/**
 * The one prefix-sharing scheduler (src/policies/llm/prefix-scheduler.ts) and its two users: the page's generator
 * (BatchedGenerator) and the training rollouts' loop (src/train/rollout-decode.ts, behind GpuTrainableModel), on the
 * fake engine whose tokens depend on the whole cache a slot holds (fake-decode-engine.ts), so a wrong copied prefix
 * gives other tokens. Hand-written cases give the expected plans, copies and prefills worked out by hand; a seeded
 * property test checks on random prompt sets that both users make the same engine calls, that every prompt is seated
 * once with a prefix it really shares, and that sharing is maximal as the module's header defines it.
 * Seeds are drawn anew each run (printed).
 */
import { describe, expect, it } from 'vitest';
import { createRng, type Rng } from '../../../src/data/rng.ts';
import { BatchedGenerator } from '../../../src/policies/llm/batched-generator.ts';
import type { Generation } from '../../../src/policies/llm/llm-policy.ts';
import { bySampling, SlotScheduler } from '../../../src/policies/llm/prefix-scheduler.ts';
import { MIN_SHARED_PREFIX } from '../../../src/policies/llm/prefix-slots.ts';
import type { GenerateRequest } from '../../../src/train/policy-model.ts';
import { decodeRollouts, type DecodedReply } from '../../../src/train/rollout-decode.ts';
import { FakeDecodeEngine } from './fake-decode-engine.ts';
import { testSeed } from '../../fixtures/seed.ts';

const SEED = testSeed('tests/policies/llm/prefix-scheduler.test.ts');
const VOCAB = 50;

const randomIds = (rng: Rng, n: number): number[] => Array.from({ length: n }, () => Math.floor(rng.next() * VOCAB));

function lcp(a: readonly number[], b: readonly number[]): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}

const request = (promptTokenIds: number[], seed: number, maxNewTokens = 4): GenerateRequest => ({ promptTokenIds, maxNewTokens, temperature: 0.7, topP: 0.9, seed });

/** The training loop's replies and engine record for `requests` on a fresh B-slot fake engine. */
async function viaRollouts(B: number, requests: readonly GenerateRequest[], endTokens: number[] = []): Promise<{ engine: FakeDecodeEngine; replies: DecodedReply[] }> {
  const engine = new FakeDecodeEngine(B, 4096, VOCAB);
  const replies = await decodeRollouts(engine, new SlotScheduler(B), requests, { key: 'k', endTokens: new Set(endTokens), prefillChunk: 64 });
  return { engine, replies };
}

/** The page generator's replies and engine record for the same requests, all called in one tick. */
async function viaGenerator(B: number, requests: readonly GenerateRequest[], endTokens: number[] = []): Promise<{ engine: FakeDecodeEngine; replies: DecodedReply[] }> {
  const engine = new FakeDecodeEngine(B, 4096, VOCAB);
  const gen = new BatchedGenerator({ engine: () => engine, endTokens, decode: (ids) => ids.join(' ') });
  const out = await Promise.all(requests.map((r) => gen.generate(r.promptTokenIds, { maxNewTokens: r.maxNewTokens, temperature: r.temperature, topP: r.topP, seed: r.seed })));
  return { engine, replies: out.map((g) => ({ tokenIds: g.tokenIds, logProbs: g.logProbs ?? [], prefillTokens: g.prefillTokens ?? -1 })) };
}

/** Each request decoded alone from an empty one-slot engine: the plain computation. */
async function alone(requests: readonly GenerateRequest[], endTokens: number[] = []): Promise<number[][]> {
  const out: number[][] = [];
  for (const r of requests) out.push((await viaRollouts(1, [r], endTokens)).replies[0].tokenIds);
  return out;
}

/** Seats `ids` where the plan says (which must not be a wait) and feeds it in one step; returns its slot. */
async function seatAndFeed(engine: FakeDecodeEngine, s: SlotScheduler, ids: readonly number[], feeding: Array<{ slot: number; pending: readonly number[] }> = []): Promise<number> {
  const plan = s.plan(engine, 'k', ids, feeding);
  if (plan.kind === 'wait') throw new Error(`unexpected wait for slot ${plan.from}`);
  const seat = s.seat(engine, 'k', ids, plan);
  await engine.sample([{ slot: seat.slot, ids: seat.pending, key: { seed: 1, sequence: 0, step: 0 } }], { temperature: 0, topP: 1 });
  s.fed(engine, seat.slot, seat.pending);
  return seat.slot;
}

describe('SlotScheduler.plan (cases worked out by hand)', () => {
  it('waits for a prefix being fed when the cached one is too short to copy (the generator used not to)', async () => {
    const rng = createRng(SEED);
    const common = randomIds(rng, 45);
    const x = [...common.slice(0, 20), (common[20] + 1) % VOCAB, ...randomIds(rng, 9)]; // shares 20 with y and z
    const y = [...common, VOCAB + 1, ...randomIds(rng, 9)];
    const z = [...common, VOCAB + 2, ...randomIds(rng, 9)]; // shares 45 with y
    const engine = new FakeDecodeEngine(3, 4096, VOCAB);
    const s = new SlotScheduler(3);
    expect(await seatAndFeed(engine, s, x)).toBe(0); // x stays live in slot 0, about to be fed a token
    const planY = s.plan(engine, 'k', y, [{ slot: 0, pending: [7] }]);
    expect(planY).toEqual({ kind: 'own', slot: 1, kept: 0 }); // 20 shared with slot 0: below MIN_SHARED_PREFIX
    if (planY.kind === 'wait') return;
    const seatY = s.seat(engine, 'k', y, planY);
    // z could keep nothing now (its slot is empty; slot 0's 20 are too few to copy), and y's slot will hold 45 of it.
    expect(s.plan(engine, 'k', z, [{ slot: 0, pending: [7] }, { slot: 1, pending: seatY.pending }])).toEqual({ kind: 'wait', from: 1, shared: 45 });
    await engine.sample([{ slot: 1, ids: seatY.pending, key: { seed: 2, sequence: 0, step: 0 } }], { temperature: 0, topP: 1 });
    s.fed(engine, 1, seatY.pending);
    expect(s.plan(engine, 'k', z, [{ slot: 0, pending: [7] }])).toEqual({ kind: 'copy', slot: 2, from: 1, kept: 45 });
  });

  it('copies from another slot only for MIN_SHARED_PREFIX more than its own slot keeps, and waits only for that much more', async () => {
    expect(MIN_SHARED_PREFIX).toBe(32); // the lengths below are worked out for 32
    const rng = createRng(SEED + 1);
    const base = randomIds(rng, 120);
    const upTo = (n: number, tail: number) => [...base.slice(0, n), VOCAB + tail]; // shares exactly n with base
    const engine = new FakeDecodeEngine(4, 4096, VOCAB);
    const s = new SlotScheduler(4);
    expect(await seatAndFeed(engine, s, upTo(50, 1))).toBe(0);
    expect(await seatAndFeed(engine, s, upTo(82, 2))).toBe(1); // copied 50 of slot 0 (50 >= 0 + 32)
    expect(engine.copies).toEqual([{ from: 0, to: 1, length: 50 }]);
    s.release(0); // free again, its 50 kept
    expect(s.plan(engine, 'k', upTo(81, 3), [])).toEqual({ kind: 'own', slot: 0, kept: 50 }); // slot 1: 81, 31 more
    const q = upTo(120, 4);
    const planQ = s.plan(engine, 'k', q, []);
    expect(planQ).toEqual({ kind: 'copy', slot: 0, from: 1, kept: 82 }); // 82 = 50 + 32
    if (planQ.kind === 'wait') return;
    const seatQ = s.seat(engine, 'k', q, planQ); // slot 0 now holds 82 of base and is fed 38 more in the coming step
    const feeding = [{ slot: 0, pending: seatQ.pending }];
    expect(s.plan(engine, 'k', upTo(113, 5), feeding)).toEqual({ kind: 'copy', slot: 2, from: 0, kept: 82 }); // 113 < 82 + 32
    expect(s.plan(engine, 'k', upTo(114, 6), feeding)).toEqual({ kind: 'wait', from: 0, shared: 114 });
  });
});

describe('both users group prompts alike', () => {
  it('two GRPO groups that share a system prompt, [A, A, B, B]: each whole prompt is computed once', async () => {
    const rng = createRng(SEED + 2);
    const system = randomIds(rng, 40);
    const a = [...system, (system[0] + 1) % VOCAB, ...randomIds(rng, 39)];
    const b = [...system, (system[0] + 2) % VOCAB, ...randomIds(rng, 39)];
    const requests = [a, a, b, b].map((p, i) => request(p, SEED + 10 + i));
    // By hand: A is fed alone at step 1 (its twin waits: 79 >= 0 + 32, and the Bs wait behind it); then A's twin
    // copies A's 79 rows and the first B the 40 of the system prompt (nothing fed next shares more with it); B's twin
    // waits for the first B (79 >= 40 + 32) and copies its 79. HEAD's training loop let only step 1's A lead, so both
    // Bs copied 40 and computed B's own 40 tokens twice: prefill [80, 1, 40, 40].
    const expectedCopies = [
      { from: 0, to: 1, length: 79 },
      { from: 0, to: 2, length: 40 },
      { from: 2, to: 3, length: 79 },
    ];
    const plain = await alone(requests);
    for (const run of [await viaRollouts(4, requests), await viaGenerator(4, requests)]) {
      expect(run.engine.copies).toEqual(expectedCopies);
      expect(run.replies.map((r) => r.prefillTokens)).toEqual([80, 1, 40, 1]);
      expect(run.replies.map((r) => r.tokenIds)).toEqual(plain);
    }
  });

  it('the generator: a later prompt waits for a prefix being fed although a shorter one, too short to copy, is cached', async () => {
    const rng = createRng(SEED + 5);
    const common = randomIds(rng, 45);
    const x = [...common.slice(0, 20), (common[20] + 1) % VOCAB, ...randomIds(rng, 9)];
    const y = [...common, VOCAB + 1, ...randomIds(rng, 9)];
    const z = [...common, VOCAB + 2, ...randomIds(rng, 9)];
    const engine = new FakeDecodeEngine(3, 4096, VOCAB);
    const gen = new BatchedGenerator({ engine: () => engine, endTokens: [], decode: (ids) => ids.join(' ') });
    const options = (seed: number) => ({ maxNewTokens: 2, temperature: 0.7, topP: 0.9, seed });
    const later: Array<Promise<Generation>> = [];
    // x is fed and stays live; then y and z come together: y is fed whole, z waits one step and copies y's 45 rows
    // (HEAD compared 45 with slot 0's 20 + 32 and prefilled z in full: 55 tokens, no copy).
    await gen.generate(x, { ...options(1), maxNewTokens: 8, onToken: (n) => void (n === 1 && later.push(gen.generate(y, options(2)), gen.generate(z, options(3)))) });
    const [ry, rz] = await Promise.all(later);
    expect([ry.prefillTokens, rz.prefillTokens]).toEqual([55, 10]);
    expect(engine.copies).toEqual([{ from: 1, to: 2, length: 45 }]);
    expect([ry.tokenIds, rz.tokenIds]).toEqual(await alone([y, z].map((p, i) => ({ promptTokenIds: p, ...options(2 + i) }))));
  });

  it('random prompt sets: the same engine calls, each prompt seated once with a prefix it shares, sharing maximal', async () => {
    for (let trial = 0; trial < 16; trial++) {
      const rng = createRng(SEED + 100 + trial);
      const where = `seed ${SEED}, trial ${trial}`;
      // n prompts of one length L (none a proper prefix of another), each an earlier one's twin or a branch of it.
      const L = 40 + Math.floor(rng.next() * 100);
      const n = 2 + Math.floor(rng.next() * 6);
      const prompts: number[][] = [randomIds(rng, L)];
      while (prompts.length < n) {
        const parent = prompts[Math.floor(rng.next() * prompts.length)];
        if (rng.next() < 0.3) prompts.push([...parent]);
        else {
          const at = Math.floor(rng.next() * (L - 1));
          prompts.push([...parent.slice(0, at), (parent[at] + 1 + Math.floor(rng.next() * (VOCAB - 1))) % VOCAB, ...randomIds(rng, L - at - 1)]);
        }
      }

      // Any batch size, replies that may end early: both users make the very same engine calls and copies.
      const B = 1 + Math.floor(rng.next() * n);
      const END = [VOCAB - 1];
      const short = prompts.map((p, i) => request(p, (SEED * 7 + trial * 31 + i) >>> 0, 1 + Math.floor(rng.next() * 6)));
      const [rollouts, generated] = [await viaRollouts(B, short, END), await viaGenerator(B, short, END)];
      expect(rollouts.engine.calls, where).toEqual(generated.engine.calls);
      expect(rollouts.engine.copies, where).toEqual(generated.engine.copies);
      expect(rollouts.replies, where).toEqual(generated.replies);
      expect(rollouts.replies.map((r) => r.tokenIds), where).toEqual(await alone(short, END));

      // B = n and replies too long to end before every prompt is seated (a prompt waits at most L / 32 steps):
      // with m_i the longest prefix prompt i shares with an earlier one (at most L - 1), it keeps 0 tokens when
      // m_i < MIN_SHARED_PREFIX, else more than m_i - MIN_SHARED_PREFIX and at most m_i; each kept prefix is one copy.
      const long = prompts.map((p, i) => request(p, (SEED * 11 + trial * 37 + i) >>> 0, n * Math.ceil(L / MIN_SHARED_PREFIX) + 1));
      const run = await viaRollouts(n, long);
      const kept = run.replies.map((r) => L - r.prefillTokens);
      prompts.forEach((p, i) => {
        const m = Math.max(0, ...prompts.slice(0, i).map((q) => Math.min(lcp(p, q), L - 1)));
        if (m < MIN_SHARED_PREFIX) expect(kept[i], `${where}, prompt ${i}`).toBe(0);
        else {
          expect(kept[i], `${where}, prompt ${i}`).toBeGreaterThan(m - MIN_SHARED_PREFIX);
          expect(kept[i], `${where}, prompt ${i}`).toBeLessThanOrEqual(m);
        }
      });
      const byLength = (xs: number[]) => [...xs].sort((x, y) => x - y);
      expect(byLength(run.engine.copies.map((c) => c.length)), where).toEqual(byLength(kept.filter((k) => k > 0)));
      // Nothing fed twice: the prompts' rests once each, then every drawn token but the last.
      expect(run.engine.fedTokens, where).toBe(run.replies.reduce((t, r) => t + r.prefillTokens + r.tokenIds.length - 1, 0));
      expect(run.replies.map((r) => r.tokenIds), where).toEqual(await alone(long));
    }
  });
});

describe('decodeRollouts', () => {
  it('an abort frees every slot and forgets what was being fed; the next call prefills in full and gives the tokens alone', async () => {
    const rng = createRng(SEED + 3);
    const prompts = [0, 1, 2].map(() => randomIds(rng, 40));
    const requests = prompts.map((p, i) => request(p, SEED + 20 + i, 8));
    const engine = new FakeDecodeEngine(3, 4096, VOCAB);
    const scheduler = new SlotScheduler(3);
    const controller = new AbortController();
    const steps: number[] = [];
    const options = { key: 'k', endTokens: new Set<number>(), prefillChunk: 64 };
    const stopped = decodeRollouts(engine, scheduler, requests, { ...options, signal: controller.signal, onTokens: (n) => void (steps.push(n), steps.length === 2 && controller.abort(new Error('stop'))) });
    await expect(stopped).rejects.toThrow('stop');
    expect(steps).toEqual([3, 3]);
    expect(scheduler.freeSlots).toBe(3);
    const again = await decodeRollouts(engine, scheduler, requests, options);
    expect(again.map((r) => r.prefillTokens)).toEqual([40, 40, 40]);
    expect(again.map((r) => r.tokenIds)).toEqual(await alone(requests));
  });

});

describe('both users', () => {
  it('end a request with no tokens to draw at once, touching no slot', async () => {
    const rng = createRng(SEED + 4);
    const requests = [request(randomIds(rng, 10), 1, 0), request(randomIds(rng, 10), 2, 2)];
    for (const { engine, replies } of [await viaRollouts(1, requests), await viaGenerator(1, requests)]) {
      expect(replies[0]).toEqual({ tokenIds: [], logProbs: [], prefillTokens: 0 });
      expect(replies[1].prefillTokens).toBe(10);
      expect(engine.calls.map((c) => c.inputs.map((i) => i.ids.length))).toEqual([[10], [1]]);
      expect(engine.copies).toEqual([]);
    }
  });
});

describe('bySampling', () => {
  it('one group per setting in order of first appearance, greedy ones together whatever their topP', () => {
    const items = [
      { temperature: 0.7, topP: 0.9, id: 'a' },
      { temperature: 0, topP: 0.5, id: 'b' },
      { temperature: 0.7, topP: 0.8, id: 'c' },
      { temperature: 0, topP: 1, id: 'd' },
      { temperature: 0.7, topP: 0.9, id: 'e' },
    ];
    expect(bySampling(items, (x) => x).map((g) => ({ sampling: g.sampling, ids: g.items.map((x) => x.id) }))).toEqual([
      { sampling: { temperature: 0.7, topP: 0.9 }, ids: ['a', 'e'] },
      { sampling: { temperature: 0, topP: 1 }, ids: ['b', 'd'] },
      { sampling: { temperature: 0.7, topP: 0.8 }, ids: ['c'] },
    ]);
  });
});
