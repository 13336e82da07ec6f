/**
 * Speed figures of a generation, the same for every backend: time to first token (the prompt's forward and the first
 * token's choice), prefill tokens/s (prompt tokens over that span) and decode tokens/s (new tokens after the first
 * over the span after it). The Engines panel (engine-compare.ts) and `npm run bench:engine` compute them here, from
 * the `prefillSeconds` / `decodeSeconds` every `Generate` reports, over several rounds (medians), after a warm-up.
 */
import type { Generate, Generation } from '../policies/llm/llm-policy.ts';

export interface SpeedFigures {
  promptTokens: number;
  newTokens: number;
  /** Milliseconds to the first new token. */
  ttftMs: number;
  prefillTokensPerSecond: number;
  /** Null when fewer than two tokens came (no decode step was timed). */
  decodeTokensPerSecond: number | null;
}

export class SpeedFiguresError extends RangeError {
  override name = 'SpeedFiguresError';
}

/** The figures of one generation of `newTokens` after `promptTokens`, timed as prefill and decode (seconds). */
export function speedFigures(promptTokens: number, newTokens: number, prefillSeconds: number | undefined, decodeSeconds: number | undefined): SpeedFigures {
  if (prefillSeconds === undefined || decodeSeconds === undefined) throw new SpeedFiguresError('This backend does not time its prefill and decode apart.');
  if (!(prefillSeconds > 0) || decodeSeconds < 0) throw new SpeedFiguresError(`Timings must be positive (prefill ${prefillSeconds} s, decode ${decodeSeconds} s).`);
  if (newTokens < 1) throw new SpeedFiguresError('The generation produced no token.');
  return {
    promptTokens,
    newTokens,
    ttftMs: prefillSeconds * 1000,
    prefillTokensPerSecond: promptTokens / prefillSeconds,
    decodeTokensPerSecond: newTokens > 1 && decodeSeconds > 0 ? (newTokens - 1) / decodeSeconds : null,
  };
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Per-figure medians of several rounds (decode: over the rounds that timed one; null when none did). */
export function medianFigures(rounds: readonly SpeedFigures[]): SpeedFigures {
  if (rounds.length === 0) throw new SpeedFiguresError('No round to summarise.');
  const decodes = rounds.map((r) => r.decodeTokensPerSecond).filter((d): d is number => d !== null);
  return {
    promptTokens: median(rounds.map((r) => r.promptTokens)),
    newTokens: median(rounds.map((r) => r.newTokens)),
    ttftMs: median(rounds.map((r) => r.ttftMs)),
    prefillTokensPerSecond: median(rounds.map((r) => r.prefillTokensPerSecond)),
    decodeTokensPerSecond: decodes.length > 0 ? median(decodes) : null,
  };
}

/** How many times faster `a` is than `b` on each figure (time to first token: b's time over a's); null if unknown. */
export function speedRatios(a: SpeedFigures, b: SpeedFigures): { prefill: number; decode: number | null; ttft: number } {
  return {
    prefill: a.prefillTokensPerSecond / b.prefillTokensPerSecond,
    decode: a.decodeTokensPerSecond !== null && b.decodeTokensPerSecond !== null ? a.decodeTokensPerSecond / b.decodeTokensPerSecond : null,
    ttft: b.ttftMs / a.ttftMs,
  };
}

export interface MeasureOptions {
  /** New tokens asked per round (a backend may stop earlier at an end token). */
  newTokens: number;
  /** Timed rounds after the warm-up; default 3. */
  rounds?: number;
  /** Checked between rounds. */
  signal?: AbortSignal;
}

/** A warm-up generation, then `rounds` timed ones, greedy, of the same prompt; their figures and medians. */
export async function measureGenerate(generate: Generate, promptIds: readonly number[], o: MeasureOptions): Promise<{ rounds: SpeedFigures[]; median: SpeedFigures; tokens: number[] }> {
  const run = (maxNewTokens: number): Promise<Generation> => generate([...promptIds], { maxNewTokens, temperature: 0, topP: 1, seed: 0 });
  await run(Math.min(2, o.newTokens));
  const rounds: SpeedFigures[] = [];
  let tokens: number[] = [];
  for (let r = 0; r < (o.rounds ?? 3); r++) {
    o.signal?.throwIfAborted();
    const g = await run(o.newTokens);
    tokens = g.tokenIds;
    rounds.push(speedFigures(promptIds.length, g.tokenIds.length, g.prefillSeconds, g.decodeSeconds));
  }
  return { rounds, median: medianFigures(rounds), tokens };
}
