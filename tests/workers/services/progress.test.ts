/**
 * Progress throttling on a fake clock: intermediate reports closer than the interval are dropped, final ones and
 * forced ones never are.
 */
import { describe, expect, it } from 'vitest';
import { PROGRESS_INTERVAL_MS, throttleProgress } from '../../../src/workers/services/progress.ts';

interface P {
  done: number;
  total: number;
}

describe('throttleProgress', () => {
  // [time ms, done, force?, passes?]
  const cases: Array<[number, number, boolean, boolean]> = [
    [1000, 0, false, true], // the first report always goes (nothing went before)
    [1010, 1, false, false], // intermediate, too soon
    [1050, 2, false, false],
    [1000 + PROGRESS_INTERVAL_MS, 3, false, true], // a full interval later
    [1101, 4, true, true], // forced
    [1102, 10, false, true], // final (done = total)
    [1103, 5, false, false],
  ];

  it.each(cases.map((c, i) => [i, ...c] as const))('report %i at %i ms (done %i, force %s) passes: %s', (i) => {
    let now = 0;
    const seen: P[] = [];
    const report = throttleProgress((p: P) => seen.push(p), (p) => p.done < p.total, () => now);
    for (const [t, done, force] of cases.slice(0, i + 1)) {
      now = t;
      report({ done, total: 10 }, force);
    }
    const [, done, , passes] = cases[i];
    expect(seen.at(-1)?.done === done).toBe(passes);
  });

  it('tolerates no listener', () => {
    expect(() => throttleProgress<P>(undefined, () => true)({ done: 1, total: 2 })).not.toThrow();
  });
});
