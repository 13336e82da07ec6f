/**
 * KV reuse across turns on the real engine (Node, Dawn; SwiftShader here) with the tiny Qwen3 model: multi-turn
 * episodes played through the BatchedGenerator, two at once on a 2-slot engine with each slot's cache kept between
 * turns, give the same tokens as the same turns each prefilled in full from an empty cache, greedy and sampled, and
 * prefill only the new tokens of every later turn. Seeds are drawn anew each run (printed).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRng, type Rng } from '../../src/data/rng.ts';
import { acquireGpu, type GpuContext } from '../../src/gpu/device.ts';
import { QwenEngine } from '../../src/gpu/engine/qwen-engine.ts';
import { nodeGpu } from '../../src/gpu/node/node-gpu.ts';
import { randomModelWeights, tinyModelConfig } from '../../src/model/tiny-model.ts';
import { BatchedGenerator } from '../../src/policies/llm/batched-generator.ts';

const SEED = Math.floor(Math.random() * 2 ** 31);

interface Turn {
  prompt: number[];
  tokenIds: number[];
  prefillTokens: number;
}

describe('KV reuse across turns on the GPU engine (tiny Qwen3, Dawn)', () => {
  let ctx: GpuContext | null = null;
  beforeAll(async () => {
    const { gpu, adapter, driver } = await nodeGpu();
    ctx = await acquireGpu({ gpu, label: 'kv-reuse-node' });
    console.log(`kv-reuse seed ${SEED} (adapter: ${adapter} via ${driver})`);
  });
  afterAll(() => ctx?.destroy());

  it('gives a full re-prefill’s tokens, two episodes at once, prefilling only each turn’s new tokens', { timeout: 900_000 }, async () => {
    const config = tinyModelConfig();
    const V = config.vocabSize;
    const engine = await QwenEngine.create(ctx!, config, { batch: 2, context: 96, maxTokens: 32, weights: 'f16' });
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
});
