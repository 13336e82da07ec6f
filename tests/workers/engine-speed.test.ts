/**
 * The Engines panel's figures: time to first token, prefill and decode tokens/s from a generation's timings (numbers
 * worked by hand), medians over rounds, ratios between backends, the warm-up + rounds protocol, the shared prompt, and
 * the table's text.
 */
import { describe, expect, it } from 'vitest';
import type { Generate, GenerateOptions } from '../../src/policies/llm/llm-policy.ts';
import type { Tokenizer } from '../../src/model/tokenizer.ts';
import { comparePrompt, compareEngines } from '../../src/workers/engine-compare.ts';
import { measureGenerate, medianFigures, speedFigures, SpeedFiguresError, speedRatios } from '../../src/workers/engine-speed.ts';
import { engineRatioText, engineTableRows } from '../../src/ui/watch/engine-figures.ts';

describe('speedFigures', () => {
  it('computes TTFT, prefill and decode rates', () => {
    // 64 prompt tokens in 0.5 s (first token included); 9 more tokens in 0.3 s.
    expect(speedFigures(64, 10, 0.5, 0.3)).toEqual({ promptTokens: 64, newTokens: 10, ttftMs: 500, prefillTokensPerSecond: 128, decodeTokensPerSecond: 30 });
  });

  it('has no decode rate with one token, and refuses missing or bad timings', () => {
    expect(speedFigures(8, 1, 0.2, 0).decodeTokensPerSecond).toBeNull();
    expect(() => speedFigures(8, 4, undefined, 0.1)).toThrow(SpeedFiguresError);
    expect(() => speedFigures(8, 4, 0, 0.1)).toThrow(/positive/);
    expect(() => speedFigures(8, 0, 0.1, 0.1)).toThrow(/no token/);
  });

  it('takes per-figure medians, skipping rounds without a decode rate', () => {
    const m = medianFigures([speedFigures(10, 5, 1, 1), speedFigures(10, 5, 0.5, 2), speedFigures(10, 1, 0.25, 0)]);
    expect(m.ttftMs).toBe(500);
    expect(m.prefillTokensPerSecond).toBe(20);
    expect(m.decodeTokensPerSecond).toBe(3); // median of 4 and 2
  });

  it('says how many times faster a is than b', () => {
    const a = speedFigures(100, 11, 0.1, 0.5); // 1000 prefill, 20 decode, 100 ms
    const b = speedFigures(100, 11, 0.4, 2); // 250 prefill, 5 decode, 400 ms
    expect(speedRatios(a, b)).toEqual({ prefill: 4, decode: 4, ttft: 4 });
  });
});

/** A generate that reports fixed timings and counts its calls. */
function fakeGenerate(prefillSeconds: number, decodeSeconds: number, tokens: (n: number) => number[]) {
  const calls: GenerateOptions[] = [];
  const generate: Generate = async (_ids, o) => {
    calls.push(o);
    const ids = tokens(o.maxNewTokens);
    return { tokenIds: ids, text: '', prefillSeconds, decodeSeconds };
  };
  return { generate, calls };
}

const fakeTokenizer = { encodeChat: () => [1, 2, 3, 4, 5] } as unknown as Tokenizer;

describe('measureGenerate and compareEngines', () => {
  it('warms up once, then times greedy rounds', async () => {
    const f = fakeGenerate(0.2, 0.7, (n) => Array.from({ length: n }, (_, i) => i));
    const m = await measureGenerate(f.generate, [1, 2, 3, 4], { newTokens: 8, rounds: 3 });
    expect(f.calls.map((c) => c.maxNewTokens)).toEqual([2, 8, 8, 8]);
    expect(f.calls.every((c) => c.temperature === 0)).toBe(true);
    expect(m.rounds).toHaveLength(3);
    expect(m.median).toEqual({ promptTokens: 4, newTokens: 8, ttftMs: 200, prefillTokensPerSecond: 20, decodeTokensPerSecond: 10 });
  });

  it('builds a prompt of exactly n tokens that ends as the chat does', () => {
    expect(comparePrompt(fakeTokenizer, 12)).toEqual([3, 4, 5, 1, 2, 3, 4, 5, 1, 2, 3, 4, 5].slice(1));
    expect(comparePrompt(fakeTokenizer, 3)).toEqual([3, 4, 5]);
  });

  it('times each backend on the same prompt and says whether their tokens agree', async () => {
    const a = fakeGenerate(0.1, 0.35, (n) => Array.from({ length: n }, () => 7));
    const b = fakeGenerate(0.4, 1.4, (n) => Array.from({ length: n }, () => 7));
    const c = await compareEngines(fakeTokenizer, [
      { backend: 'WebGPU engine', detail: 'WebGPU, f16', generate: a.generate },
      { backend: 'transformers.js', detail: 'WASM, q4', generate: b.generate },
    ], { promptTokens: 20, newTokens: 8, rounds: 1 });
    expect(c.sameTokens).toBe(true);
    expect(c.rows.map((r) => r.median.decodeTokensPerSecond)).toEqual([20, 5]);
    const rows = engineTableRows(c);
    expect(rows[0]).toEqual({ backend: 'WebGPU engine', detail: 'WebGPU, f16', ttft: '100 ms', prefill: '200 tokens/s', decode: '20.0 tokens/s' });
    expect(rows[1]).toEqual({ backend: 'transformers.js', detail: 'WASM, q4', ttft: '400 ms', prefill: '50.0 tokens/s', decode: '5.0 tokens/s' });
    expect(engineRatioText(c)).toBe('WebGPU engine vs transformers.js: decode 4.00×, prefill 4.00×, time to first token 4.00× (above 1× means the WebGPU engine is faster).');
  });

  it('refuses out-of-range requests and an empty field', async () => {
    const a = fakeGenerate(0.1, 0.1, (n) => new Array<number>(n).fill(1));
    await expect(compareEngines(fakeTokenizer, [], {})).rejects.toThrow(/at least one backend/);
    await expect(compareEngines(fakeTokenizer, [{ backend: 'x', detail: '', generate: a.generate }], { promptTokens: 0 })).rejects.toThrow(/prompt length/);
    await expect(compareEngines(fakeTokenizer, [{ backend: 'x', detail: '', generate: a.generate }], { newTokens: 5000 })).rejects.toThrow(/new tokens/);
    expect(a.calls).toHaveLength(0);
  });
});
