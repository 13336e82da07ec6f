/**
 * The column search of an unordered answer (src/env/answer.ts, `rowsMatch`) does bounded work when no column
 * permutation can match. The answer: m nulls per row; the gold: 2 rows of m − 1 NULL columns beside one column of
 * 'x', which no answer column can stand for. The 720-permutation cap counts complete permutations only, so before the
 * completability check the search arranged the NULL columns every possible way before each dead end: (m − 1)! steps,
 * 1.9 s at m = 11 and minutes at m = 13 — an ANSWER that stalls the environment. Work is counted with V8's block
 * counts (tests/fixtures/work-count.ts), never a clock.
 */
import { describe, expect, it } from 'vitest';
import { answerMatches, type AnswerVerdict } from '../../src/env/answer.ts';
import type { ResultTable } from '../../src/env/verifier.ts';
import { countWork } from '../fixtures/work-count.ts';

const gold = (m: number): ResultTable => {
  const row = [...Array.from({ length: m - 1 }, () => null), 'x'];
  return { columns: row.map((_, i) => `c${i}`), rows: [row, [...row]] };
};
const answer = (m: number): string => JSON.stringify([Array.from({ length: m }, () => null), Array.from({ length: m }, () => null)]);

describe('the column search on an answer no permutation matches', () => {
  it('refuses it with work that grows as a power of the column count, not its factorial', () => {
    const work = [6, 8].map((m) => {
      let verdict: AnswerVerdict | undefined;
      const counted = countWork(() => {
        verdict = answerMatches(answer(m), gold(m), false);
      });
      expect(verdict?.match, `m = ${m}`).toBe(false);
      return counted.total;
    });
    // (m − 1)! dead ends would make m = 8 cost 7! / 5! = 42 times m = 6; m² cells to compare make it (8/6)² ≈ 1.8.
    expect(work[1] / work[0], `work at m = 6 and 8: ${work.join(', ')}`).toBeLessThan(4);
  });

  it('still matches when the columns are only out of order', () => {
    const g = gold(8);
    const shuffled = g.rows.map((r) => [r[7], ...r.slice(0, 7)]);
    expect(answerMatches(JSON.stringify(shuffled), g, false).match).toBe(true);
  });
});
