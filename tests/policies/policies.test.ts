import { describe, expect, it } from 'vitest';
import { SqlEnv } from '../../src/env/env.ts';
import { runEpisode } from '../../src/eval/episode.ts';
import { answerMatches } from '../../src/env/answer.ts';
import { answerText, OraclePolicy, tablesUsed } from '../../src/policies/oracle.ts';
import { RandomPolicy } from '../../src/policies/random.ts';
import { useTinyDataset } from '../fixtures/tiny-dataset.ts';

const tiny = useTinyDataset();

describe('OraclePolicy', () => {
  it('finds the tables a gold query uses, quoted or not, in order of mention', () => {
    expect(tablesUsed('SELECT T1.name FROM "Singer" AS T1 JOIN concert ON 1 = 1', ['concert', 'singer', 'stadium'])).toEqual(['singer', 'concert']);
    expect(tablesUsed("SELECT 'singer' FROM stadium", ['singer', 'stadium'])).toEqual(['stadium']);
  });

  it('writes gold results as scalar, list or rows', () => {
    expect(answerText({ columns: ['c'], rows: [[6]] })).toBe('6');
    expect(answerText({ columns: ['n'], rows: [['Ana']] })).toBe('Ana');
    expect(answerText({ columns: ['n'], rows: [['a'], ['b']] })).toBe('["a","b"]');
    expect(answerText({ columns: ['n', 'a'], rows: [['a', 1], ['b', null]] })).toBe('[["a",1],["b",null]]');
  });

  it('writes BLOB cells so the answer verifier accepts them', () => {
    const blob = new Uint8Array([0x68, 0x69]);
    for (const gold of [
      { columns: ['b'], rows: [[blob]] },
      { columns: ['b'], rows: [[blob], [new Uint8Array([1])]] },
      { columns: ['b', 'n'], rows: [[blob, 1]] },
    ]) {
      expect(answerMatches(answerText(gold), gold, false).match).toBe(true);
    }
  });

  it('describes, queries the gold SQL and answers correctly on every question', async () => {
    const env = new SqlEnv(tiny.dataset, tiny.executor);
    for (const q of tiny.dataset.questions) {
      const record = await runEpisode(env, new OraclePolicy(), { questionId: q.id, seed: 0 });
      expect(record.success).toBe(true);
      const types = record.transcript.map((s) => s.action.type);
      expect(types.at(-1)).toBe('ANSWER');
      expect(types.at(-2)).toBe('QUERY');
      expect(types.slice(0, -2).every((t) => t === 'DESCRIBE')).toBe(true);
    }
  });

  it('still answers within a tiny budget', async () => {
    const env = new SqlEnv(tiny.dataset, tiny.executor, { budget: 2, weights: { correctness: 1, progress: 0.2, operational: 0 } });
    const record = await runEpisode(env, new OraclePolicy(), { questionId: 'tiny-4', seed: 0 });
    expect(record.transcript.map((s) => s.action.type)).toEqual(['QUERY', 'ANSWER']);
    expect(record.success).toBe(true);
  });
});

describe('RandomPolicy', () => {
  it('takes only valid actions and always ends the episode', async () => {
    const env = new SqlEnv(tiny.dataset, tiny.executor);
    for (let seed = 0; seed < 100; seed++) {
      const record = await runEpisode(env, new RandomPolicy(), { split: 'all', seed });
      expect(record.transcript.every((s) => s.action.type !== 'INVALID' && s.outcome !== 'error')).toBe(true);
      expect(record.terminated || record.truncated).toBe(true);
    }
  });
});
