/** Searching questions for the Play view's "by question" picker (src/ui/play/questions.ts). */
import { describe, expect, it } from 'vitest';
import { filterQuestions, isFreePlayOnly, nextQuestion, questionLabel, type QuestionChoice } from '../../src/ui/play/questions.ts';

const questions: QuestionChoice[] = [
  { id: 'dev-0001', dbId: 'car_1', question: 'How many cars are there?', difficulty: 'easy', split: 'train' },
  { id: 'dev-0002', dbId: 'car_1', question: 'Which maker has the most models?', difficulty: 'hard', split: 'eval' },
  { id: 'dev-0003', dbId: 'pets_1', question: 'How many dogs are older than 3?', difficulty: 'medium', split: 'eval' },
];

describe('filterQuestions', () => {
  it.each([
    ['', ['dev-0001', 'dev-0002', 'dev-0003']],
    ['   ', ['dev-0001', 'dev-0002', 'dev-0003']],
    ['how many', ['dev-0001', 'dev-0003']],
    ['car easy', ['dev-0001']],
    ['EVAL', ['dev-0002', 'dev-0003']],
    ['dev-0003', ['dev-0003']],
    ['pets_1 hard', []],
  ])('%j → %j', (query, ids) => expect(filterQuestions(questions, query).map((q) => q.id)).toEqual(ids));
});

describe('questionLabel', () => {
  it('names id, database and difficulty, and cuts long questions', () => {
    expect(questionLabel(questions[0])).toBe('dev-0001 · car_1 · easy — How many cars are there?');
    expect(questionLabel({ ...questions[0], question: 'x'.repeat(200) }, 10)).toBe(`dev-0001 · car_1 · easy — ${'x'.repeat(9)}…`);
  });
});

describe('nextQuestion', () => {
  const any = { split: 'all', difficulty: 'any' } as const;
  it.each([
    ['dev-0001', any, 'dev-0002'],
    ['dev-0003', any, 'dev-0001'], // wraps round
    ['dev-0001', { split: 'eval', difficulty: 'any' } as const, 'dev-0002'],
    ['dev-0002', { split: 'eval', difficulty: 'any' } as const, 'dev-0003'],
    ['dev-0003', { split: 'eval', difficulty: 'any' } as const, 'dev-0002'],
    ['dev-0002', { split: 'all', difficulty: 'easy' } as const, 'dev-0001'],
    ['gone', any, 'dev-0001'], // the current question is not in the list: the first that fits
  ])('after %s with %j: %s', (current, filter, id) => expect(nextQuestion(questions, current, filter)?.id).toBe(id));
  it('is never the current question: null when no other fits', () => {
    expect(nextQuestion(questions, 'dev-0001', { split: 'train', difficulty: 'any' })).toBeNull();
    expect(nextQuestion([questions[0]], 'dev-0001', any)).toBeNull();
  });
});

describe('isFreePlayOnly', () => {
  it('is a dataset whose every question is free play', () => {
    expect(isFreePlayOnly([{ freePlay: true }])).toBe(true);
    expect(isFreePlayOnly([{ freePlay: true }, {}])).toBe(false);
    expect(isFreePlayOnly([])).toBe(false);
  });
});
