/**
 * The estimate shown before a model run (src/ui/evaluate/run-estimate.ts): its size (episodes × turns × tokens per
 * turn), the tokens processed with the KV cache kept across turns (a 600-token first prompt, then reply and
 * observation per turn), the bound at a measured speed or at the Train view's plan (FLOPs per token / FLOP/s), the
 * medians a measured speed takes, and the text. Expected values are worked out by hand in the comments; the
 * scaling check draws its shapes from a seed printed each run.
 */
import { describe, expect, it } from 'vitest';
import type { GenerationRecord } from '../../../src/eval/transcript.ts';
import { roughDuration } from '../../../src/train/progress.ts';
import { episodeTokensProcessed, estimateRun, measuredSpeed, planBasis, shapeText, timeText, type RunShape } from '../../../src/ui/evaluate/run-estimate.ts';
import { testSeed } from '../../fixtures/seed.ts';

/** FLOPs per token = 2 × (layers × 12 × hidden² + vocab × hidden) = 2 × (2 × 1200 + 1000) = 6800. */
const MODEL = { layers: 2, hidden: 10, vocab: 100 };
const SHAPE: RunShape = { episodes: 3, turns: 4, tokensPerTurn: 5 };

describe('episodeTokensProcessed', () => {
  it.each([
    [10, 256, 600 + 5120],
    [1, 1, 602],
    [0, 256, 600],
  ])('%d turns of %d tokens → %d', (turns, tokens, expected) => expect(episodeTokensProcessed(turns, tokens)).toBe(expected));
});

describe('estimateRun', () => {
  it('counts the generated and processed tokens of every episode', () => {
    const e = estimateRun(SHAPE, MODEL, planBasis(false));
    expect(e.generatedTokens).toBe(60); // 3 × 4 × 5
    expect(e.processedTokens).toBe(1920); // 3 × (600 + 4 × 2 × 5)
  });

  it("prices the processed tokens at the Train plan's FLOP/s for the adapter", () => {
    // 1920 tokens × 6800 FLOPs = 13,056,000 FLOPs: 0.013056 s at 1 GFLOP/s (software), 6.528e-5 s at 200 GFLOP/s.
    expect(estimateRun(SHAPE, MODEL, planBasis(true)).seconds).toBeCloseTo(0.013056, 9);
    expect(estimateRun(SHAPE, MODEL, planBasis(false)).seconds).toBeCloseTo(6.528e-5, 12);
  });

  it('uses a measured speed: the first prompt and each observation prefilled, each reply decoded', () => {
    // Per episode: 600 / 100 + 4 × (5 / 10 + 5 / 100) = 6 + 2.2 = 8.2 s; 3 episodes: 24.6 s.
    const e = estimateRun(SHAPE, MODEL, { kind: 'measured', speed: { decodeTokensPerSecond: 10, prefillTokensPerSecond: 100, turns: 7 } });
    expect(e.seconds).toBeCloseTo(24.6, 9);
    expect(e.generatedTokens).toBe(60);
  });

  it('scales linearly with the episodes and grows with the tokens per turn (seeded shapes)', () => {
    const seed = testSeed('tests/ui/evaluate/run-estimate.test.ts');
    let state = seed;
    const next = (n: number) => {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      return 1 + (state % n);
    };
    for (let i = 0; i < 50; i++) {
      const shape = { episodes: next(40), turns: next(12), tokensPerTurn: next(1024) };
      const measured = { kind: 'measured' as const, speed: { decodeTokensPerSecond: next(100), prefillTokensPerSecond: next(1000), turns: 1 } };
      for (const basis of [planBasis(true), measured]) {
        const one = estimateRun(shape, MODEL, basis).seconds;
        expect(estimateRun({ ...shape, episodes: shape.episodes * 2 }, MODEL, basis).seconds).toBeCloseTo(2 * one, 6);
        expect(estimateRun({ ...shape, tokensPerTurn: shape.tokensPerTurn + 1 }, MODEL, basis).seconds).toBeGreaterThan(one);
      }
    }
  });
});

const rec = (r: Partial<GenerationRecord> & { newTokens: number; tokensPerSecond: number }): GenerationRecord => ({ seconds: 1, cutByLimit: false, ...r });

describe('measuredSpeed', () => {
  it('takes the median decode rate (the overall rate where decode was not timed) and the median prefill rate', () => {
    const speed = measuredSpeed([
      rec({ newTokens: 10, tokensPerSecond: 5, decodeTokensPerSecond: 8, prefillTokensPerSecond: 100 }),
      rec({ newTokens: 0, tokensPerSecond: 999, decodeTokensPerSecond: 999, prefillTokensPerSecond: 999 }), // no token: left out
      rec({ newTokens: 4, tokensPerSecond: 3 }),
      rec({ newTokens: 6, tokensPerSecond: 4, decodeTokensPerSecond: 12, prefillTokensPerSecond: 300 }),
    ]);
    expect(speed).toEqual({ decodeTokensPerSecond: 8, prefillTokensPerSecond: 200, turns: 3 });
  });

  it('averages the two middle rates of an even count, and prefills at the decode rate when no prefill was timed', () => {
    expect(measuredSpeed([rec({ newTokens: 1, tokensPerSecond: 2 }), rec({ newTokens: 1, tokensPerSecond: 4 })])).toEqual({ decodeTokensPerSecond: 3, prefillTokensPerSecond: 3, turns: 2 });
  });

  it('says nothing without a turn that generated a token', () => {
    expect(measuredSpeed([])).toBeNull();
    expect(measuredSpeed([rec({ newTokens: 0, tokensPerSecond: 0 })])).toBeNull();
  });
});

describe('text', () => {
  it.each([
    [0.2, '1 s'],
    [89, '89 s'],
    [90, '2 min'],
    [5399, '90 min'],
    [5400, '1.5 h'],
    [36000, '10.0 h'],
  ])('roughDuration(%d) is %s', (s, text) => expect(roughDuration(s)).toBe(text));

  it('spells the run size out with plurals', () => {
    const shape = { episodes: 3, turns: 10, tokensPerTurn: 256 };
    expect(shapeText(shape, estimateRun(shape, MODEL, planBasis(false)))).toBe('3 episodes × 10 turns × 256 tokens per turn = at most 7,680 generated tokens');
    const one = { episodes: 1, turns: 1, tokensPerTurn: 1 };
    expect(shapeText(one, estimateRun(one, MODEL, planBasis(false)))).toBe('1 episode × 1 turn × 1 token per turn = at most 1 generated token');
  });

  it('says what the bound rests on: the plan (speed not measured yet) or the measured rates', () => {
    const plan = timeText(estimateRun(SHAPE, MODEL, planBasis(false)));
    expect(plan).toMatch(/^Arithmetic alone takes about 1 s by the Train view's time plan \(a GPU at an assumed 200 GFLOP\/s\); .*expect longer/);
    expect(plan).toContain('not measured yet');
    expect(timeText(estimateRun(SHAPE, MODEL, planBasis(true)))).toContain('software WebGPU adapter at about 1 GFLOP/s');
    const measured = timeText(estimateRun(SHAPE, MODEL, { kind: 'measured', speed: { decodeTokensPerSecond: 10, prefillTokensPerSecond: 100, turns: 7 } }));
    expect(measured).toBe('At most about 25 s on this device, at the speed measured on this page (decode 10.0 tokens/s, prefill 100.0 tokens/s, over 7 turns).');
  });
});
