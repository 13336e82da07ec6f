/**
 * The split's paraphrase rule (src/data/paraphrase.ts): questions with the same content words are paraphrases; a
 * change in what is asked (a negation, min against max, a quoted value, a number, a different noun) keeps two
 * questions apart. Cases are Spider dev questions and near misses written by hand.
 */
import { describe, expect, it } from 'vitest';
import { questionWords } from '../../src/data/paraphrase.ts';

describe('questionWords', () => {
  it('reduces a question to its sorted distinct content words', () => {
    expect(questionWords('What are the names of the Countries, in Asia?')).toBe('asia country name');
    expect(questionWords('Show the number of singers.')).toBe('number singer');
    expect(questionWords('Which cities have LESS than 5 stadiums?')).toBe('5 city less stadium');
    expect(questionWords('Who is there?')).toBe('');
  });

  it.each([
    [
      'Spider dev 776 and 777 (two golds that disagree)',
      'Which Asian countries have a population that is larger than any country in Africa?',
      'What are the Asian countries which have a population larger than that of any country in Africa?',
    ],
    [
      'Spider dev 774 and 775 (less / smaller)',
      'What are the African countries that have a  population less than any country in Asia?',
      'Which African countries have a smaller population than that of any country in Asia?',
    ],
    ['an imperative and a question', 'Show the names of all singers.', 'What are the names of all singers?'],
    ['word order and plurals', 'List the name and the age of each dog.', 'What are the ages and names of each dog?'],
  ])('%s: joined', (_name, a, b) => {
    expect(questionWords(a)).not.toBe('');
    expect(questionWords(a)).toBe(questionWords(b));
  });

  it.each([
    ['a negation', 'Which countries speak English?', 'Which countries do not speak English?'],
    ['some against any', 'Which channels are playing some cartoon?', 'Which channels are playing any cartoon?'],
    ['max against min', 'What is the max age of dogs?', 'What is the min age of dogs?'],
    ['more against less', 'Which countries have a larger population than France?', 'Which countries have a smaller population than France?'],
    ['a quoted value', 'List the titles of cartoons on "Sky Radio".', 'List the titles of cartoons on "Sky Sport".'],
    ['a number', 'Which teams won more than 3 games?', 'Which teams won more than 4 games?'],
    ['the number of a thing against the thing', 'Show the names of teachers and the courses they teach.', 'Show the names of teachers and the number of courses they teach.'],
    ['another noun', 'What is the grade of each high schooler?', 'What are the names and grades of each high schooler?'],
  ])('%s: kept apart', (_name, a, b) => {
    expect(questionWords(a)).not.toBe(questionWords(b));
  });
});
