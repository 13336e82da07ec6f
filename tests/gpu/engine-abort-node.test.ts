/**
 * A stop reaches the engine while it compiles (Node, Dawn; SwiftShader here): the fused kernels of a LoRA state are
 * compiled on the first decode in that state (about a second each on a software adapter), and a caller whose
 * signal aborts then gets its rejection at once instead of after the compile; nothing was written, and the next
 * call gives the tokens of an engine that was never interrupted. Seeds are drawn anew each run (printed).
 */
import { describe, expect, it } from 'vitest';
import { createRng } from '../../src/data/rng.ts';
import { QwenEngine } from '../../src/gpu/engine/qwen-engine.ts';
import { randomModelWeights, tinyModelConfig } from '../../src/model/tiny-model.ts';
import { useDawnContext } from './dawn-context.ts';
import { testSeed } from '../fixtures/seed.ts';

const SEED = testSeed('tests/gpu/engine-abort-node.test.ts');

describe('engine: a stop during the first decode’s compile (tiny Qwen3, Dawn)', () => {
  const gpu = useDawnContext('engine-abort-node', `engine-abort seed ${SEED}`);

  it('rejects with the signal’s reason at once, writes nothing, and decodes as if never stopped', { timeout: 300_000 }, async () => {
    const config = tinyModelConfig();
    const weights = randomModelWeights(config, createRng(SEED));
    const rng = createRng(SEED + 1);
    const prompt = Array.from({ length: 5 }, () => Math.floor(rng.next() * config.vocabSize));
    const key = { seed: SEED, sequence: 0, step: 0 };
    const sampling = { temperature: 0.8, topP: 0.9 };
    const create = async () => {
      const engine = await QwenEngine.create(gpu(), config, { batch: 1, context: 32, maxTokens: 8, weights: 'f16' });
      engine.loadWeights(weights);
      return engine;
    };
    const engine = await create();
    try {
      expect(engine.fusedOff).toBeNull();
      const controller = new AbortController();
      const stopped = new Error('stopped during the compile');
      const pending = engine.sample([{ slot: 0, ids: prompt, key }], sampling, { signal: controller.signal });
      controller.abort(stopped);
      await expect(pending).rejects.toBe(stopped);
      expect(engine.length(0)).toBe(0);
      // An already-aborted signal is refused before anything is recorded.
      await expect(engine.sample([{ slot: 0, ids: prompt, key }], sampling, { signal: AbortSignal.abort(stopped) })).rejects.toBe(stopped);
      const resumed = await engine.sample([{ slot: 0, ids: prompt, key }], sampling);
      expect(engine.length(0)).toBe(prompt.length);
      const fresh = await create();
      try {
        expect(await fresh.sample([{ slot: 0, ids: prompt, key }], sampling)).toEqual(resumed);
      } finally {
        fresh.destroy();
      }
    } finally {
      engine.destroy();
    }
  });
});
