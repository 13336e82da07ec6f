/**
 * The clock on a transformers.js generation: the streamer's first `put` is the prompt, each later one a new token;
 * prefill is start → first token, decode first token → last, on an injected clock; `onToken` hears counts, and a
 * throw from it stops the caller (a cancelled evaluation).
 */
import { describe, expect, it } from 'vitest';
import { timingStreamer } from '../../../src/workers/tjs/tjs-streamer.ts';

interface Putter {
  put: (v: bigint[][]) => void;
}

describe('timingStreamer', () => {
  it('times prefill and decode apart and collects the tokens', () => {
    let t = 1000;
    const heard: number[] = [];
    const s = timingStreamer((n) => heard.push(n), () => t);
    const put = (s.streamer as unknown as Putter).put;
    s.start(); // t = 1000
    expect(s.prefillMs()).toBeNull();
    t = 1010;
    put([[1n, 2n, 3n]]); // the prompt
    t = 1250;
    put([[42n]]);
    t = 1300;
    put([[7n]]);
    t = 1390;
    put([[9n]]);
    expect(s.tokens).toEqual([42, 7, 9]);
    expect(s.prefillMs()).toBe(250);
    expect(s.decodeMs()).toBe(140);
    expect(heard).toEqual([1, 2, 3]);
  });

  it('lets a throwing onToken stop the generation', () => {
    const s = timingStreamer(() => {
      throw new DOMException('cancelled', 'AbortError');
    });
    const put = (s.streamer as unknown as Putter).put;
    put([[1n]]);
    expect(() => put([[2n]])).toThrow('cancelled');
  });
});
