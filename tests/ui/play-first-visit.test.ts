/** The first-visit card's example question (src/ui/play/first-visit.ts): easiest difficulty, then shortest text. */
import { describe, expect, it } from 'vitest';
import type { Difficulty } from '../../src/data/types.ts';
import { exampleQuestion } from '../../src/ui/play/first-visit.ts';

const q = (id: string, difficulty: Difficulty, question: string, freePlay = false) => ({ id, dbId: 'db', question, difficulty, split: 'train' as const, ...(freePlay && { freePlay }) });

describe('exampleQuestion', () => {
  it('picks an easy question over shorter harder ones, and the shortest easy one', () => {
    const questions = [q('h', 'extra', 'Hi?'), q('e1', 'easy', 'How many singers are there in all?'), q('m', 'medium', 'Who?'), q('e2', 'easy', 'How many pets?'), q('e3', 'easy', 'Name every dog.')];
    expect(exampleQuestion(questions)?.id).toBe('e2');
  });

  it('keeps dataset order between equally short easy questions, whatever order the rest come in', () => {
    expect(exampleQuestion([q('m', 'medium', 'x'), q('a', 'easy', 'abc'), q('b', 'easy', 'xyz')])?.id).toBe('a');
    expect(exampleQuestion([q('b', 'easy', 'xyz'), q('a', 'easy', 'abc'), q('m', 'medium', 'x')])?.id).toBe('b');
  });

  it('falls back to the lowest difficulty present, skips free play, and is null for nothing to play', () => {
    expect(exampleQuestion([q('x', 'extra', 'a'), q('h', 'hard', 'a long hard one'), q('x2', 'extra', 'b')])?.id).toBe('h');
    expect(exampleQuestion([q('f', 'easy', 'free', true), q('m', 'medium', 'Which?')])?.id).toBe('m');
    expect(exampleQuestion([q('f', 'easy', 'free', true)])).toBeNull();
    expect(exampleQuestion([])).toBeNull();
  });
});
