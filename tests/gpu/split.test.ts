/**
 * Splitting tensors into whole-row chunks that each fit one binding.
 */
import { describe, expect, it } from 'vitest';
import { GpuLimitError } from '../../src/gpu/errors.ts';
import { maxChunkBytes, splitRows } from '../../src/gpu/split.ts';
import { grid1d } from '../../src/gpu/wgsl/common.ts';

describe('splitRows', () => {
  it('keeps a tensor that fits in one chunk', () => {
    expect(splitRows(10, 8, 80)).toEqual([{ row0: 0, rows: 10, byteOffset: 0, bytes: 80 }]);
  });

  it('splits into the fewest chunks, sized within one row of each other', () => {
    const chunks = splitRows(100, 8, 8 * 40);
    expect(chunks.map((c) => c.rows)).toEqual([34, 33, 33]);
    expect(chunks.map((c) => c.row0)).toEqual([0, 34, 67]);
    expect(chunks.map((c) => c.byteOffset)).toEqual([0, 34 * 8, 67 * 8]);
  });

  it.each([
    [1, 4, 4],
    [7, 12, 25],
    [1000, 6, 999],
    [151936, 2048, 128 * 1024 * 1024],
  ])('rows=%d rowBytes=%d max=%d: chunks cover every row once and each fits', (rows, rowBytes, max) => {
    const chunks = splitRows(rows, rowBytes, max);
    expect(chunks.reduce((a, c) => a + c.rows, 0)).toBe(rows);
    let next = 0;
    for (const c of chunks) {
      expect(c.row0).toBe(next);
      expect(c.bytes).toBe(c.rows * rowBytes);
      expect(c.bytes).toBeLessThanOrEqual(max);
      next += c.rows;
    }
    expect(chunks.length).toBe(Math.ceil(rows / Math.floor(max / rowBytes)));
  });

  it("splits Qwen3-0.6B's tied embedding (151936 × 1024 f16) in three at the default 128 MiB", () => {
    expect(splitRows(151936, 2048, 128 * 1024 * 1024).map((c) => c.rows)).toEqual([50646, 50645, 50645]);
  });

  it('refuses a row larger than a binding', () => {
    expect(() => splitRows(3, 100, 99)).toThrow(GpuLimitError);
  });

  it('uses the smaller of the binding and buffer limits', () => {
    expect(maxChunkBytes({ maxStorageBufferBindingSize: 2 ** 30, maxBufferSize: 2 ** 28 })).toBe(2 ** 28);
  });
});

describe('grid1d', () => {
  it('lays large dispatches on a 2-D grid that covers every workgroup', () => {
    expect(grid1d(10)).toEqual([10, 1, 1]);
    expect(grid1d(0)).toEqual([1, 1, 1]);
    const [x, y] = grid1d(200_000);
    expect(x).toBeLessThanOrEqual(65535);
    expect(x * y).toBeGreaterThanOrEqual(200_000);
  });
});
