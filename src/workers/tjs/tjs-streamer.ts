/**
 * The clock on a transformers.js generation (batch 1). `model.generate` calls its streamer's `put` once with the
 * prompt, then once after each forward + token choice, so: prefill (time to first token) is the span from the call
 * to the 2nd `put`, and decode is the span from the 2nd `put` to the last — the same spans the WebGPU engine's
 * generate times (llm-generate.ts), so engine-speed.ts compares like with like. The app's backend (tjs-generate.ts)
 * and `npm run bench:engine`'s page (bench/engine/transformers-decode.ts) both time through this.
 *
 * `onToken` hears the count of new tokens after each one, inside `generate`'s loop: a throw there (a cancelled
 * evaluation) stops the generation.
 */
import type { TextStreamer } from '@huggingface/transformers';

export interface TimingStreamer {
  /** New token ids, in order (end token included when one came). */
  tokens: number[];
  /** Milliseconds from `start` to the first new token, or null before it. */
  prefillMs(): number | null;
  /** Milliseconds from the first new token to the last (0 with one token). */
  decodeMs(): number;
  /** Marks the generation's start (call just before `generate`). */
  start(): void;
  /** Give this to `generate({ streamer })`. */
  streamer: TextStreamer;
}

export function timingStreamer(onToken?: (newTokens: number) => void, now: () => number = () => performance.now()): TimingStreamer {
  const stamps: number[] = [];
  const tokens: number[] = [];
  let t0 = now();
  const put = (value: bigint[][]) => {
    stamps.push(now());
    if (stamps.length === 1) return; // the prompt
    tokens.push(Number(value[0][0]));
    onToken?.(tokens.length);
  };
  return {
    tokens,
    start: () => {
      t0 = now();
    },
    prefillMs: () => (stamps.length > 1 ? stamps[1] - t0 : null),
    decodeMs: () => (stamps.length > 1 ? stamps[stamps.length - 1] - stamps[1] : 0),
    // generate() only calls put and end; its declared parameter type is BaseStreamer & TextStreamer.
    streamer: { put, end: () => undefined } as unknown as TextStreamer,
  };
}
