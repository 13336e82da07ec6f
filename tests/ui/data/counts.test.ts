/** The Data view's question counts: by split and difficulty with totals, by database, and byte sizes in words. */
import { describe, expect, it } from 'vitest';
import type { Difficulty, Split } from '../../../src/data/types.ts';
import { countByDatabase, countBySplit, formatBytes, splitsPresent } from '../../../src/ui/data/counts.ts';

const q = (dbId: string, split: Split, difficulty: Difficulty) => ({ dbId, split, difficulty });
const summary = {
  databases: [
    { id: 'zoo', tables: ['pets', 'owners'] },
    { id: 'shop', tables: ['sales'] },
    { id: 'empty', tables: ['t'] },
  ],
  questions: [q('zoo', 'train', 'easy'), q('zoo', 'train', 'hard'), q('zoo', 'eval', 'easy'), q('shop', 'train', 'extra'), q('shop', 'train', 'easy')],
};

describe('counts', () => {
  it('by split and difficulty, splits without questions left out, then all', () => {
    expect(countBySplit(summary)).toEqual([
      { split: 'train', byDifficulty: { easy: 2, medium: 0, hard: 1, extra: 1 }, total: 4 },
      { split: 'eval', byDifficulty: { easy: 1, medium: 0, hard: 0, extra: 0 }, total: 1 },
      { split: 'all', byDifficulty: { easy: 3, medium: 0, hard: 1, extra: 1 }, total: 5 },
    ]);
    expect(countBySplit({ questions: [] })).toEqual([{ split: 'all', byDifficulty: { easy: 0, medium: 0, hard: 0, extra: 0 }, total: 0 }]);
    expect(splitsPresent(summary)).toEqual(['train', 'eval']);
  });

  it('by database, in the dataset order, databases without questions included', () => {
    expect(countByDatabase(summary)).toEqual([
      { id: 'zoo', tables: 2, bySplit: { train: 2, eval: 1, heldout: 0 }, total: 3 },
      { id: 'shop', tables: 1, bySplit: { train: 2, eval: 0, heldout: 0 }, total: 2 },
      { id: 'empty', tables: 1, bySplit: { train: 0, eval: 0, heldout: 0 }, total: 0 },
    ]);
  });

  it.each([
    [0, '0 B'],
    [1023, '1023 B'],
    [2048, '2.0 KB'],
    [15 * 1024, '15 KB'],
    [5.5 * 1024 * 1024, '5.5 MB'],
    [3 * 1024 ** 4, '3072 GB'],
  ])('%i bytes → %s', (bytes, text) => expect(formatBytes(bytes)).toBe(text));
});
