/** Step alignment for side-by-side transcripts: a diff of action sequences, with what the environment answered. */
import { describe, expect, it } from 'vitest';
import { alignSteps, commonSubsequence, sameResponse } from '../../../src/ui/compare/align.ts';
import { step } from './records.ts';

const steps = (...actions: string[]) => actions.map((a) => step(a));
const kinds = (rows: ReturnType<typeof alignSteps>) => rows.map((r) => [r.a, r.b, r.kind]);

describe('commonSubsequence', () => {
  it.each([
    [[], [], []],
    [['a', 'b', 'c'], ['a', 'b', 'c'], [[0, 0], [1, 1], [2, 2]]],
    [['a', 'x', 'c'], ['a', 'c'], [[0, 0], [2, 1]]],
    [['x', 'y'], ['z'], []],
    [['a', 'b'], ['b', 'a'], [[1, 0]]],
  ] as Array<[string[], string[], Array<[number, number]>]>)('%j vs %j', (a, b, pairs) => expect(commonSubsequence(a, b)).toEqual(pairs));
});

describe('alignSteps', () => {
  it('lines up identical episodes step for step, all the same', () => {
    const a = steps('DESCRIBE book', 'QUERY SELECT 1', 'ANSWER 1');
    expect(kinds(alignSteps(a, steps('DESCRIBE book', 'QUERY SELECT 1', 'ANSWER 1')))).toEqual([
      [0, 0, 'same'],
      [1, 1, 'same'],
      [2, 2, 'same'],
    ]);
  });

  it('leaves a gap for a step only one side took, and pairs different steps between anchors', () => {
    const a = steps('DESCRIBE book', 'SAMPLE book', 'QUERY SELECT count(*) FROM book', 'ANSWER 12');
    const b = steps('DESCRIBE book', 'QUERY SELECT count(*) FROM book', 'ANSWER 12');
    expect(kinds(alignSteps(a, b))).toEqual([
      [0, 0, 'same'],
      [1, null, 'onlyA'],
      [2, 1, 'same'],
      [3, 2, 'same'],
    ]);
    const random = steps('SAMPLE member', 'DESCRIBE loan', 'QUERY SELECT 2', 'DESCRIBE book');
    const oracle = steps('DESCRIBE book', 'QUERY SELECT count(*) FROM book', 'ANSWER 12');
    expect(kinds(alignSteps(random, oracle))).toEqual([
      [0, null, 'onlyA'],
      [1, null, 'onlyA'],
      [2, null, 'onlyA'],
      [3, 0, 'same'],
      [null, 1, 'onlyB'],
      [null, 2, 'onlyB'],
    ]);
    expect(kinds(alignSteps(steps('QUERY SELECT 1', 'ANSWER 1'), steps('QUERY SELECT 2', 'ANSWER 2', 'ANSWER 3')))).toEqual([
      [0, 0, 'different'],
      [1, 1, 'different'],
      [null, 2, 'onlyB'],
    ]);
  });

  it('marks the same action that the environment answered differently as changed, steps-left aside', () => {
    const a = [step('SAMPLE book', 'rows', 0.02, 'ok', 9)];
    expect(alignSteps(a, [step('SAMPLE book', 'rows', 0.02, 'ok', 3)])[0].kind).toBe('same');
    expect(alignSteps(a, [step('SAMPLE book', 'rows\n(Note: repeated)', -0.02, 'repeat')])[0].kind).toBe('changed');
    expect(sameResponse(step('ANSWER 1', 'correct', 1), step('ANSWER 1', 'correct', 1.0000000001))).toBe(true);
    expect(alignSteps(steps('QUERY  SELECT   1'), steps('QUERY SELECT 1'))[0].kind).toBe('same');
  });

  it('aligns against an empty episode', () => {
    expect(kinds(alignSteps([], steps('ANSWER 1')))).toEqual([[null, 0, 'onlyB']]);
  });
});
