/**
 * The view a step keeps of a result (src/env/result-view.ts): text cells cut to the view's width, and a value the SQL
 * worker already cut keeps its marker's tail, so the page can still say how long the value was in the database.
 */
import { describe, expect, it } from 'vitest';
import { boundedResultView } from '../../src/env/result-view.ts';
import { clipText as workerClip, parseClipMarker } from '../../src/sql/clip.ts';

const LIMITS = { maxRows: 20, maxCellChars: 1_000, maxChars: 65_536 };

describe('boundedResultView', () => {
  it("keeps the worker's marker tail when it cuts a value the worker already cut", () => {
    const whole = 'x'.repeat(1_000_000);
    const fromWorker = workerClip(whole, 4_096).value;
    const tail = fromWorker.slice(fromWorker.indexOf('… [cut: '));
    expect(tail).toMatch(/^… \[cut: 1000000 characters, fnv1a64 [0-9a-f]{16}\]$/);

    const [[cell]] = boundedResultView(['big'], [[fromWorker]], 1, LIMITS).rows;
    expect(typeof cell).toBe('string');
    const text = cell as string;
    expect(text.length).toBe(1_000);
    expect(text.endsWith(tail)).toBe(true);
    expect(text.slice(0, 1_000 - tail.length)).toBe('x'.repeat(1_000 - tail.length));
    expect(parseClipMarker(text)).toMatchObject({ kind: 'text', chars: 1_000_000 });
  });

  it('cuts a long ordinary value to the width, ending in …', () => {
    const [[cell]] = boundedResultView(['t'], [['y'.repeat(5_000)]], 1, LIMITS).rows;
    expect(cell).toBe(`${'y'.repeat(999)}…`);
  });

  it("cuts a marked value like any text where the cell is narrower than the marker's tail", () => {
    const fromWorker = workerClip('z'.repeat(10_000), 100).value;
    // 2,000 columns: the view narrows every cell to floor(65,536 / (2 × 2,000)) = 16 characters, under the tail's ~50.
    const columns = Array.from({ length: 2_000 }, (_, i) => `c${i}`);
    const row = columns.map(() => fromWorker);
    const [first] = boundedResultView(columns, [row], 1, LIMITS).rows;
    expect(first[0]).toBe(`${'z'.repeat(15)}…`);
  });
});
