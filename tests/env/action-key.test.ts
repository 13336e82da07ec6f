/** Repeat detection: re-cased, re-spaced, re-quoted and re-aliased repeats share a key; other statements do not. */
import { describe, expect, it } from 'vitest';
import { actionKey, normalizeSqlForRepeat } from '../../src/env/action-key.ts';

describe('actionKey', () => {
  it.each([
    ['SELECT 1', 'select   1 ;'],
    ['SELECT count(*) FROM singer', 'select COUNT ( * )\n from   Singer;;'],
    ['SELECT name FROM singer', 'SELECT `name` FROM [singer] -- a comment'],
    ['SELECT count(*) AS n FROM singer', 'SELECT count(*) n FROM singer'],
    ['SELECT a FROM t', 'SELECT a FROM t /* x */'],
  ])('%s ≡ %s', (a, b) => {
    expect(normalizeSqlForRepeat(a)).toBe(normalizeSqlForRepeat(b));
    expect(actionKey({ type: 'QUERY', sql: a })).toBe(actionKey({ type: 'QUERY', sql: b }));
  });

  it.each([
    ["SELECT 1 FROM t WHERE c = 'France'", "SELECT 1 FROM t WHERE c = 'france'"],
    ['SELECT 1.0/2', 'SELECT 1/2'],
    ['SELECT 1', 'SELECT 2'],
    ['SELECT "Name" FROM t WHERE x = "France"', 'SELECT "Name" FROM t WHERE x = "france"'],
    ["SELECT 'a b'", "SELECT 'a  b'"],
  ])('%s ≢ %s', (a, b) => {
    expect(normalizeSqlForRepeat(a)).not.toBe(normalizeSqlForRepeat(b));
  });

  it('tables compare case-insensitively, and answers by trimmed lower-case text', () => {
    expect(actionKey({ type: 'DESCRIBE', table: 'Singer' })).toBe(actionKey({ type: 'DESCRIBE', table: 'singer' }));
    expect(actionKey({ type: 'DESCRIBE', table: 'singer' })).not.toBe(actionKey({ type: 'SAMPLE', table: 'singer' }));
    expect(actionKey({ type: 'ANSWER', value: ' Ana  ' })).toBe(actionKey({ type: 'ANSWER', value: 'ana' }));
  });
});
