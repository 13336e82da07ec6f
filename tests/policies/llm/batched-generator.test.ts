/**
 * BatchedGenerator (src/policies/llm/batched-generator.ts) and PrefixSlots (prefix-slots.ts) on a fake engine whose
 * tokens depend on the whole cache a slot holds and the weights each position was computed with
 * (fake-decode-engine.ts): KV reuse across turns prefills only the new tokens and gives the tokens of a full
 * re-prefill; reuse is refused after an adapter change, `forgetCaches`, or a slot written by someone else; batched
 * calls give each call's tokens alone; cancel drops one call from the batch. Seeds are drawn anew each run (printed).
 */
import { describe, expect, it } from 'vitest';
import { createRng, type Rng } from '../../../src/data/rng.ts';
import { BatchedGenerator, type Variant } from '../../../src/policies/llm/batched-generator.ts';
import type { Generation } from '../../../src/policies/llm/llm-policy.ts';
import { PrefixSlots } from '../../../src/policies/llm/prefix-slots.ts';
import { FakeDecodeEngine } from './fake-decode-engine.ts';
import { testSeed } from '../../fixtures/seed.ts';

const SEED = testSeed('tests/policies/llm/batched-generator.test.ts');

const VOCAB = 50;
const END = 49;

function generator(engine: FakeDecodeEngine, endTokens = [END]): BatchedGenerator {
  return new BatchedGenerator({ engine: () => engine, endTokens, decode: (ids) => ids.join(' ') });
}

const randomIds = (rng: Rng, n: number): number[] => Array.from({ length: n }, () => Math.floor(rng.next() * (VOCAB - 1)));

interface TurnResult {
  prompt: number[];
  generation: Generation;
}

/**
 * A demo episode of `turns` turns: each next prompt is the last prompt, the reply (end token included as the
 * template writes it) and an observation of `obs` ids. `dropThink` drops the first 2 ids of the previous reply from
 * the next prompt, as Qwen3's template drops a past reply's <think> block.
 */
async function playEpisode(
  generate: (prompt: number[], seed: number) => Promise<Generation>,
  seed: number,
  turns: number,
  o: { obs?: number; dropThink?: boolean; beforeTurn?: (turn: number) => void } = {},
): Promise<TurnResult[]> {
  const rng = createRng(seed);
  let prompt = randomIds(rng, 20);
  const out: TurnResult[] = [];
  for (let t = 0; t < turns; t++) {
    o.beforeTurn?.(t);
    const generation = await generate(prompt, Math.floor(rng.next() * 2 ** 32));
    out.push({ prompt, generation });
    const reply = generation.tokenIds.at(-1) === END ? generation.tokenIds : [...generation.tokenIds, END];
    const kept = o.dropThink ? reply.slice(Math.min(2, reply.length - 1)) : reply;
    prompt = [...prompt, ...kept, ...randomIds(rng, o.obs ?? 5)];
  }
  return out;
}

const callOptions = (seed: number, temperature = 0.7) => ({ maxNewTokens: 6, temperature, topP: 0.9, seed });

/** Longest common prefix of two id lists. */
function lcp(a: readonly number[], b: readonly number[]): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}

describe('PrefixSlots', () => {
  it('keeps the shared prefix, at most the prompt less one token, under the same key and engine length', async () => {
    const engine = new FakeDecodeEngine(2, 100);
    const slots = new PrefixSlots(2);
    expect(slots.claim(engine, 0, 'k', [1, 2, 3, 4])).toBe(0);
    engine.reset(0);
    await engine.sample([{ slot: 0, ids: [1, 2, 3, 4], key: { seed: 1, sequence: 0, step: 0 } }], { temperature: 0, topP: 1 });
    slots.fed(engine, 0, [1, 2, 3, 4]);
    expect(slots.shared(engine, 0, 'k', [1, 2, 9])).toBe(2);
    expect(slots.shared(engine, 0, 'k', [1, 2, 3, 4])).toBe(3); // one token is always fed
    expect(slots.shared(engine, 0, 'k', [1, 2, 3, 4, 5, 6])).toBe(4);
    expect(slots.shared(engine, 0, 'other', [1, 2, 3, 4, 5])).toBe(0);
    expect(slots.best(engine, [1, 0], 'k', [1, 2, 3, 4, 5])).toBe(0);
    engine.rewind(0, 2); // someone else moved the slot
    expect(slots.shared(engine, 0, 'k', [1, 2, 3, 4, 5])).toBe(0);
    expect(() => new PrefixSlots(0)).toThrow(/positive integer/);
  });

  it('refuses a slot someone else rewrote to the very length it held', async () => {
    const engine = new FakeDecodeEngine(1, 100);
    const slots = new PrefixSlots(1);
    const key = { seed: 1, sequence: 0, step: 0 };
    slots.claim(engine, 0, 'k', [1, 2, 3, 4]);
    await engine.sample([{ slot: 0, ids: [1, 2, 3, 4], key }], { temperature: 0, topP: 1 });
    slots.fed(engine, 0, [1, 2, 3, 4]);
    expect(slots.shared(engine, 0, 'k', [1, 2, 3, 4, 5])).toBe(4);
    // Another writer (a training forward, say) resets the slot and feeds 4 other tokens: same length, other cache.
    engine.reset(0);
    await engine.sample([{ slot: 0, ids: [1, 2, 3, 9], key }], { temperature: 0, topP: 1 });
    expect(engine.length(0)).toBe(4);
    expect(slots.shared(engine, 0, 'k', [1, 2, 3, 4, 5])).toBe(0);
    expect(slots.claim(engine, 0, 'k', [1, 2, 3, 4, 5])).toBe(0);
  });
});

describe('PrefixSlots between slots', () => {
  it('finds the longest prefix in another slot, counts a prefix being fed, and copies only what a slot holds', async () => {
    const engine = new FakeDecodeEngine(3, 100);
    const slots = new PrefixSlots(3);
    const feed = async (slot: number, ids: number[]) => {
      slots.claim(engine, slot, 'k', ids);
      await engine.sample([{ slot, ids, key: { seed: 1, sequence: 0, step: 0 } }], { temperature: 0, topP: 1 });
      slots.fed(engine, slot, ids);
    };
    await feed(0, [1, 2, 3, 4, 5]);
    await feed(1, [1, 2, 9]);
    expect(slots.longest(engine, 'k', [1, 2, 3, 4, 8], 2)).toEqual({ slot: 0, shared: 4 });
    expect(slots.longest(engine, 'k', [1, 2, 3, 4, 8], 0)).toEqual({ slot: 1, shared: 2 });
    expect(slots.longest(engine, 'other', [1, 2, 3, 4, 8], 2)).toBeNull();
    expect(slots.longest(engine, 'k', [7, 7], 2)).toBeNull();
    // Slot 1 once fed [4, 6]: it would share [1, 2] only (it holds 9 at position 2); slot 0 once fed [6, 7]: 7 tokens.
    expect(slots.sharedOnceFed(engine, 1, 'k', [4, 6], [1, 2, 3, 4, 5, 6, 7, 8])).toBe(2);
    expect(slots.sharedOnceFed(engine, 0, 'k', [6, 7], [1, 2, 3, 4, 5, 6, 7, 8])).toBe(7);
    expect(slots.sharedOnceFed(engine, 0, 'k', [6, 7, 8], [1, 2, 3, 4, 5, 6, 7, 8])).toBe(7); // one token is always fed
    expect(slots.claimCopy(engine, 0, 2, 'k', [1, 2, 3, 4, 8], 4)).toBe(4);
    expect(engine.copies).toEqual([{ from: 0, to: 2, length: 4 }]);
    expect(slots.shared(engine, 2, 'k', [1, 2, 3, 4, 9])).toBe(4);
    expect(() => slots.claimCopy(engine, 1, 2, 'k', [1, 2, 3, 4, 8], 3)).toThrow(/does not hold 3 tokens/);
  });
});

describe('BatchedGenerator: KV reuse across turns', () => {
  for (const dropThink of [false, true]) {
    it(`prefills only the new tokens of each turn and gives a full re-prefill's tokens${dropThink ? ' (template drops past <think>)' : ''}`, async () => {
      const turns = 6;
      const obs = 5;
      const reused = new FakeDecodeEngine(1, 4096, VOCAB);
      const gen = generator(reused);
      const after = await playEpisode((p, s) => gen.generate(p, callOptions(s)), SEED, turns, { obs, dropThink });

      const fresh = new FakeDecodeEngine(1, 4096, VOCAB);
      const full = generator(fresh);
      const before = await playEpisode((p, s) => full.generate(p, callOptions(s)), SEED, turns, { obs, dropThink, beforeTurn: () => full.forgetCaches() });

      expect(after.map((t) => t.generation.tokenIds)).toEqual(before.map((t) => t.generation.tokenIds));
      expect(before.map((t) => t.generation.prefillTokens)).toEqual(before.map((t) => t.prompt.length));
      const prefill = after.map((t) => t.generation.prefillTokens!);
      expect(prefill[0]).toBe(20);
      for (let k = 1; k < turns; k++) {
        const prev = after[k - 1];
        // The slot holds the previous prompt and its reply but the reply's last token (never fed).
        const held = [...prev.prompt, ...prev.generation.tokenIds.slice(0, -1)];
        const expected = after[k].prompt.length - lcp(after[k].prompt, held);
        expect(prefill[k]).toBe(expected);
        if (!dropThink) expect(prefill[k]).toBeLessThanOrEqual(obs + 2); // the observation, the end token, maybe the last reply token
      }
      // What the engine was fed: every turn's prefill and its reply less the last token.
      const replies = after.reduce((a, t) => a + t.generation.tokenIds.length - 1, 0);
      expect(reused.fedTokens).toBe(prefill.reduce((a, b) => a + b, 0) + replies);
      expect(gen.stats.prefillTokens).toBe(prefill.reduce((a, b) => a + b, 0));
      expect(gen.stats.promptTokens).toBe(after.reduce((a, t) => a + t.prompt.length, 0));
    });
  }

  it('refuses reuse after an adapter change (another key), after forgetCaches, and when the slot was written by someone else', async () => {
    const engine = new FakeDecodeEngine(1, 4096, VOCAB);
    const gen = generator(engine);
    const variant = (name: string, version: number, on = engine): Variant => ({
      name,
      prepare: async () => {
        on.weightsVersion = version;
        return `${name}@${version}`;
      },
    });
    const base = variant('base', 0);
    const adapter = variant('adapter', 1);
    const rng = createRng(SEED + 1);
    const prompt = randomIds(rng, 30);
    const first = await gen.generate(prompt, callOptions(7), base);
    const next = [...prompt, ...first.tokenIds, ...randomIds(rng, 4)];
    const onAdapter = await gen.generate(next, callOptions(8), adapter);
    expect(onAdapter.prefillTokens).toBe(next.length);
    // The same call alone on an engine that only ever saw the adapter's weights.
    const clean = new FakeDecodeEngine(1, 4096, VOCAB);
    const alone = await generator(clean).generate(next, callOptions(8), variant('adapter', 1, clean));
    expect(onAdapter.tokenIds).toEqual(alone.tokenIds);

    const again = [...next, ...onAdapter.tokenIds, ...randomIds(rng, 4)];
    gen.forgetCaches();
    expect((await gen.generate(again, callOptions(9), adapter)).prefillTokens).toBe(again.length);

    const later = [...again, 1, 2, 3];
    engine.reset(0); // a training forward, say, writes the slot
    await engine.sample([{ slot: 0, ids: again, key: { seed: 1, sequence: 0, step: 0 } }], { temperature: 0, topP: 1 });
    expect((await gen.generate(later, callOptions(10), adapter)).prefillTokens).toBe(later.length);
  });

  it('forgets every live slot after an engine error, and the next call prefills in full', async () => {
    const engine = new FakeDecodeEngine(2, 4096, VOCAB);
    const gen = generator(engine);
    const rng = createRng(SEED + 2);
    const prompt = randomIds(rng, 12);
    const first = await gen.generate(prompt, callOptions(1));
    const real = engine.sample.bind(engine);
    engine.sample = () => Promise.reject(new Error('device lost'));
    const next = [...prompt, ...first.tokenIds, 3, 4];
    await expect(gen.generate(next, callOptions(2))).rejects.toThrow('device lost');
    engine.sample = real;
    expect((await gen.generate(next, callOptions(2))).prefillTokens).toBe(next.length);
  });
});

describe('BatchedGenerator: batching', () => {
  for (const B of [8, 3]) {
    it(`gives 8 concurrent episodes at B = ${B} each one's tokens alone, in fewer engine calls`, async () => {
      const engine = new FakeDecodeEngine(B, 4096, VOCAB);
      const gen = generator(engine);
      const seeds = Array.from({ length: 8 }, (_, i) => SEED + 100 + i);
      // Mixed sampling settings: sequences of one step are grouped by them.
      const temperature = (i: number) => (i % 3 === 0 ? 0 : 0.7);
      const together = await Promise.all(seeds.map((s, i) => playEpisode((p, seed) => gen.generate(p, callOptions(seed, temperature(i))), s, 4)));
      const alone = [];
      let aloneCalls = 0;
      for (const [i, s] of seeds.entries()) {
        const one = new FakeDecodeEngine(1, 4096, VOCAB);
        alone.push(await playEpisode((p, seed) => generator(one).generate(p, callOptions(seed, temperature(i))), s, 4));
        aloneCalls += one.calls.length;
      }
      expect(together.map((e) => e.map((t) => t.generation.tokenIds))).toEqual(alone.map((e) => e.map((t) => t.generation.tokenIds)));
      expect(gen.stats.maxBatch).toBe(B);
      expect(engine.calls.length).toBeLessThan(aloneCalls);
      for (const call of engine.calls) expect(call.inputs.length).toBeLessThanOrEqual(B);
    });
  }

  it('cancel drops one call (onToken throws, or its signal aborts); the others finish with their tokens alone', async () => {
    const engine = new FakeDecodeEngine(4, 4096, VOCAB);
    const gen = generator(engine, []); // no end token: no reply ends before its cancel
    const rng = createRng(SEED + 3);
    const prompts = [0, 1, 2].map(() => randomIds(rng, 10));
    const big = { maxNewTokens: 40, temperature: 0.7, topP: 0.9 };
    const cancelled = new Error('Evaluation cancelled');
    const controller = new AbortController();
    const calls = [
      gen.generate(prompts[0], { ...big, seed: 1 }),
      gen.generate(prompts[1], {
        ...big,
        seed: 2,
        onToken: (n) => {
          if (n === 2) throw cancelled;
        },
      }),
      gen.generate(prompts[2], { ...big, seed: 3, signal: controller.signal, onToken: (n) => n === 1 && controller.abort(new Error('stopped')) }),
    ];
    const settled = await Promise.allSettled(calls);
    expect(settled[1]).toEqual({ status: 'rejected', reason: cancelled });
    expect(settled[2].status).toBe('rejected');
    expect((settled[2] as PromiseRejectedResult).reason).toEqual(new Error('stopped'));
    const alone = await generator(new FakeDecodeEngine(1, 4096, VOCAB), []).generate(prompts[0], { ...big, seed: 1 });
    expect(settled[0]).toEqual({ status: 'fulfilled', value: expect.objectContaining({ tokenIds: alone.tokenIds }) as unknown });
    // The cancelled sequences left the batch at once: no later call fed their slots.
    const slotOf = (ids: number[]) => engine.calls[0].inputs.find((i) => i.ids.join() === ids.join())!.slot;
    const lastCallWith = (slot: number) => engine.calls.findLastIndex((c) => c.inputs.some((i) => i.slot === slot));
    expect(lastCallWith(slotOf(prompts[1]))).toBe(1); // its onToken threw after the second step
    expect(lastCallWith(slotOf(prompts[2]))).toBe(0); // aborted after the first
  });

  it('a queued call whose signal aborts rejects at once, before a slot frees, and is never fed', async () => {
    const engine = new FakeDecodeEngine(1, 4096, VOCAB);
    const gen = generator(engine, []); // no end token: the first call holds the only slot for all its tokens
    const rng = createRng(SEED + 5);
    const [first, queued, early] = [0, 1, 2].map(() => randomIds(rng, 10));
    const events: string[] = [];
    const controller = new AbortController();
    const stopped = new Error('stopped while queued');
    const running = gen
      .generate(first, {
        ...callOptions(1),
        maxNewTokens: 12,
        onToken: (n) => {
          if (n === 3) controller.abort(stopped);
          events.push(`token ${n}`);
        },
      })
      .then(() => events.push('first done'));
    const waiting = gen.generate(queued, { ...callOptions(2), signal: controller.signal }).catch((e: unknown) => {
      events.push('queued rejected');
      expect(e).toBe(stopped);
    });
    await expect(gen.generate(early, { ...callOptions(3), signal: AbortSignal.abort(stopped) })).rejects.toBe(stopped);
    await Promise.all([running, waiting]);
    // Rejected within the step that aborted it (token 3), not once the first call had freed the slot.
    expect(events.indexOf('queued rejected')).toBe(events.indexOf('token 3') + 1);
    expect(events.at(-1)).toBe('first done');
    const fed = engine.calls.flatMap((c) => c.inputs.map((i) => i.ids.join()));
    expect(fed).not.toContain(queued.join());
    expect(fed).not.toContain(early.join());
    expect(engine.calls).toHaveLength(12);
  });

  describe('sharing a prefix between slots', () => {
    const SYSTEM = 100; // a shared "system prompt" of this many ids, well above MIN_SHARED_PREFIX
    const alone = (prompt: number[], options: ReturnType<typeof callOptions>) => generator(new FakeDecodeEngine(1, 4096, VOCAB), []).generate(prompt, options);

    it('episodes that start together compute their shared system prompt once: the others wait one step and copy it', async () => {
      const B = 4;
      const engine = new FakeDecodeEngine(B, 4096, VOCAB);
      const gen = generator(engine, []);
      const rng = createRng(SEED + 6);
      const system = randomIds(rng, SYSTEM);
      const prompts = Array.from({ length: B }, () => [...system, ...randomIds(rng, 10)]);
      const results = await Promise.all(prompts.map((p, i) => gen.generate(p, callOptions(100 + i))));
      for (let i = 0; i < B; i++) expect(results[i].tokenIds).toEqual((await alone(prompts[i], callOptions(100 + i))).tokenIds);
      // Step 1 fed the first prompt alone; step 2 the others past their copied prefix, with the first one's token.
      expect(engine.calls[0].inputs).toEqual([{ slot: 0, ids: prompts[0] }]);
      const first = engine.calls[0].inputs[0].slot;
      expect(engine.copies).toEqual(prompts.slice(1).map((p) => ({ from: first, to: expect.any(Number) as number, length: lcp(p, prompts[0]) })));
      expect(new Set(engine.copies.map((c) => c.to)).size).toBe(B - 1);
      const computed = prompts.reduce((n, p, i) => n + (i === 0 ? p.length : p.length - lcp(p, prompts[0])), 0);
      expect(gen.stats.prefillTokens).toBe(computed);
      expect(results.map((r) => r.prefillTokens)).toEqual(prompts.map((p, i) => (i === 0 ? p.length : p.length - lcp(p, prompts[0]))));
    });

    it('copies from a live slot into a free one for a call that comes later', async () => {
      const engine = new FakeDecodeEngine(2, 4096, VOCAB);
      const gen = generator(engine, []);
      const rng = createRng(SEED + 7);
      const system = randomIds(rng, SYSTEM);
      const [a, b] = [0, 1].map(() => [...system, ...randomIds(rng, 8)]);
      const later: Array<Promise<Generation>> = [];
      const first = gen.generate(a, { ...callOptions(7), maxNewTokens: 12, onToken: (n) => void (n === 3 && later.push(gen.generate(b, callOptions(8)))) });
      const ra = await first;
      expect(later).toHaveLength(1);
      const rb = await later[0];
      expect(engine.copies).toEqual([{ from: 0, to: 1, length: lcp(a, b) }]);
      expect(rb.prefillTokens).toBe(b.length - lcp(a, b));
      expect(ra.tokenIds).toEqual((await alone(a, { ...callOptions(7), maxNewTokens: 12 })).tokenIds);
      expect(rb.tokenIds).toEqual((await alone(b, callOptions(8))).tokenIds);
    });

    it('neither waits nor copies for a prefix shorter than MIN_SHARED_PREFIX, and stops waiting for a prefill that was cancelled', async () => {
      const rng = createRng(SEED + 8);
      const short = randomIds(rng, 8);
      const engine = new FakeDecodeEngine(3, 4096, VOCAB);
      const gen = generator(engine, []);
      const prompts = [0, 1, 2].map(() => [...short, ...randomIds(rng, 12)]);
      await Promise.all(prompts.map((p, i) => gen.generate(p, callOptions(20 + i))));
      expect(engine.calls[0].inputs).toHaveLength(3);
      expect(engine.copies).toEqual([]);

      const cancelled = new FakeDecodeEngine(2, 4096, VOCAB);
      const gen2 = generator(cancelled, []);
      const system = randomIds(rng, SYSTEM);
      const [x, y] = [0, 1].map(() => [...system, ...randomIds(rng, 6)]);
      const controller = new AbortController();
      const gone = gen2.generate(x, { ...callOptions(30), signal: controller.signal });
      const waits = gen2.generate(y, callOptions(31));
      controller.abort(new Error('stopped'));
      await expect(gone).rejects.toThrow('stopped');
      const ry = await waits;
      expect(cancelled.copies).toEqual([]);
      expect(ry.prefillTokens).toBe(y.length);
      expect(ry.tokenIds).toEqual((await alone(y, callOptions(31))).tokenIds);
    });
  });

  it('runs an idle task only once the batch has drained, admitting nothing meanwhile', async () => {
    const engine = new FakeDecodeEngine(2, 4096, VOCAB);
    const gen = generator(engine, []); // no end token: the first reply takes all its 10 tokens
    const rng = createRng(SEED + 4);
    const events: string[] = [];
    let second: Promise<unknown> = Promise.resolve();
    let firstCalls = 0;
    const first = gen
      .generate(randomIds(rng, 8), {
        ...callOptions(1),
        maxNewTokens: 10,
        onToken: (n) => {
          if (n !== 1) return;
          gen.whenIdle(() => {
            firstCalls = engine.calls.length;
            events.push('idle task');
          });
          second = gen.generate(randomIds(rng, 8), callOptions(2)).then(() => events.push('second done'));
        },
      })
      .then(() => events.push('first done'));
    await first;
    await second;
    expect(events).toEqual(['first done', 'idle task', 'second done']);
    // The second call waited for the task: its steps all came after the first call's.
    expect(engine.calls.slice(0, firstCalls).every((c) => c.inputs.length === 1)).toBe(true);
    expect(firstCalls).toBe(10);
    let ran = false;
    generator(new FakeDecodeEngine(1, 64, VOCAB)).whenIdle(() => (ran = true));
    expect(ran).toBe(true); // idle: at once
  });

  it('rejects an empty prompt and one that fills the context', async () => {
    const gen = generator(new FakeDecodeEngine(1, 16, VOCAB));
    await expect(gen.generate([], callOptions(1))).rejects.toThrow(/empty/);
    await expect(gen.generate(new Array<number>(16).fill(1), callOptions(1))).rejects.toThrow(/fills the model's context of 16 tokens/);
  });
});
