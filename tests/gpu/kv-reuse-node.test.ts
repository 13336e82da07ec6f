/**
 * KV reuse across turns on the real engine (Node, Dawn; SwiftShader here) with the tiny Qwen3 model: multi-turn
 * episodes played through the BatchedGenerator, two at once on a 2-slot engine with each slot's cache kept between
 * turns, give the same tokens as the same turns each prefilled in full from an empty cache, greedy and sampled, and
 * prefill only the new tokens of every later turn. Seeds are drawn anew each run (printed).
 */
import { describe, expect, it } from 'vitest';
import { createRng, type Rng } from '../../src/data/rng.ts';
import { QwenEngine } from '../../src/gpu/engine/qwen-engine.ts';
import { randomModelWeights, tinyModelConfig } from '../../src/model/tiny-model.ts';
import { BatchedGenerator } from '../../src/policies/llm/batched-generator.ts';
import { useDawnContext } from './dawn-context.ts';
import { testSeed } from '../fixtures/seed.ts';

const SEED = testSeed('tests/gpu/kv-reuse-node.test.ts');

interface Turn {
  prompt: number[];
  tokenIds: number[];
  prefillTokens: number;
}

describe('KV reuse across turns on the GPU engine (tiny Qwen3, Dawn)', () => {
  const gpu = useDawnContext('kv-reuse-node', `kv-reuse seed ${SEED}`);

  it('gives a full re-prefill’s tokens, two episodes at once, prefilling only each turn’s new tokens', { timeout: 900_000 }, async () => {
    const config = tinyModelConfig();
    const V = config.vocabSize;
    const engine = await QwenEngine.create(gpu(), config, { batch: 2, context: 96, maxTokens: 32, weights: 'f16' });
    try {
      engine.loadWeights(randomModelWeights(config, createRng(SEED)));
      const options = { engine: () => engine, endTokens: [] as number[], decode: (ids: readonly number[]) => ids.join(' '), prefillChunk: 32 };
      const ids = (rng: Rng, n: number) => Array.from({ length: n }, () => Math.floor(rng.next() * V));
      const turns = 3;
      const settings = [
        { temperature: 0, topP: 1 },
        { temperature: 0.8, topP: 0.9 },
      ];

      /** An episode: a 20-token prompt, then each turn the reply and a 6-token "observation" appended. */
      const play = async (gen: BatchedGenerator, episode: number, before?: () => void): Promise<Turn[]> => {
        const rng = createRng(SEED + 1 + episode);
        let prompt = ids(rng, 20);
        const out: Turn[] = [];
        for (let t = 0; t < turns; t++) {
          before?.();
          const g = await gen.generate(prompt, { maxNewTokens: 3, ...settings[episode], seed: Math.floor(rng.next() * 2 ** 32) });
          out.push({ prompt, tokenIds: g.tokenIds, prefillTokens: g.prefillTokens! });
          prompt = [...prompt, ...g.tokenIds, ...ids(rng, 6)];
        }
        return out;
      };

      const reused = new BatchedGenerator(options);
      const after = await Promise.all([0, 1].map((e) => play(reused, e)));
      const full = new BatchedGenerator(options);
      const before: Turn[][] = [];
      for (const e of [0, 1]) before.push(await play(full, e, () => full.forgetCaches()));

      for (const e of [0, 1]) {
        console.log(`episode ${e} (${JSON.stringify(settings[e])}): prefill by turn, reuse ${after[e].map((t) => t.prefillTokens).join(', ')} vs full ${before[e].map((t) => t.prefillTokens).join(', ')}`);
        expect(after[e].map((t) => t.tokenIds)).toEqual(before[e].map((t) => t.tokenIds));
        expect(before[e].map((t) => t.prefillTokens)).toEqual(before[e].map((t) => t.prompt.length));
        // Turn 1 prefills its prompt; every later turn the observation and the last reply token (never fed).
        expect(after[e].map((t) => t.prefillTokens)).toEqual([20, ...new Array<number>(turns - 1).fill(7)]);
      }
      expect(reused.stats.maxBatch).toBe(2);
    } finally {
      engine.destroy();
    }
  });

  it.each(['f16', 'f32'] as const)('copyPrefix (%s cache): a slot given another slot’s prefix gives a full prefill’s logits, and the source is untouched', { timeout: 900_000 }, async (kvCache) => {
    const config = tinyModelConfig();
    const V = config.vocabSize;
    const weights = randomModelWeights(config, createRng(SEED + 10));
    const rng = createRng(SEED + 11);
    const ids = (n: number) => Array.from({ length: n }, () => Math.floor(rng.next() * V));
    const shared = ids(30);
    const a = [...shared, ...ids(10)];
    const b = [...shared, ...ids(5)];
    const next = ids(1);
    const create = async () => {
      const e = await QwenEngine.create(gpu(), config, { batch: 2, context: 64, maxTokens: 32, weights: 'f16', kvCache });
      e.loadWeights(weights);
      return e;
    };
    const copied = await create();
    const fresh = await create();
    try {
      await copied.step([{ slot: 0, ids: a }]);
      await copied.step([{ slot: 1, ids: ids(12) }]); // slot 1 held something else: the copy replaces it
      copied.copyPrefix(0, 1, shared.length);
      expect(copied.length(1)).toBe(shared.length);
      // The copy and slot 1's suffix in the same step as slot 0's next token (the copy runs first).
      const both = await copied.step([
        { slot: 1, ids: b.slice(shared.length) },
        { slot: 0, ids: next },
      ]);
      const fullB = await fresh.step([{ slot: 1, ids: b }]);
      await fresh.step([{ slot: 0, ids: a }]);
      const nextA = await fresh.step([{ slot: 0, ids: next }]);
      expect(both.subarray(0, V)).toEqual(fullB);
      expect(both.subarray(V)).toEqual(nextA);
      expect([copied.length(0), copied.length(1)]).toEqual([a.length + 1, b.length]);
      expect(() => copied.copyPrefix(0, 0, 1)).toThrow(/both source and destination/);
      expect(() => copied.copyPrefix(1, 0, b.length + 1)).toThrow(`length ${b.length + 1} is outside 1..${b.length}`);
    } finally {
      copied.destroy();
      fresh.destroy();
    }
  });
});
