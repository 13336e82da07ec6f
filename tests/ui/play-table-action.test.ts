/**
 * The actions Play's Describe and Sample buttons send (src/ui/play/table-action.ts): a table name that is not a plain
 * identifier goes quoted, and the environment's parser, from text or from the object, reads back the exact name.
 */
import { describe, expect, it } from 'vitest';
import { normalizeAction, parseAction } from '../../src/env/actions.ts';
import { quoteTableName, tableAction } from '../../src/ui/play/table-action.ts';

describe('quoteTableName', () => {
  it.each([
    ['pets', 'pets'],
    ['_t1', '_t1'],
    ['Order', 'Order'],
    ['my table', '"my table"'],
    ['say "hi"', '"say ""hi"""'],
    ['a"b', '"a""b"'],
    ['1st', '"1st"'],
    ['[x y]', '"[x y]"'],
    ['semi;', '"semi;"'],
    [' padded ', '" padded "'],
    ['café', '"café"'],
  ])('%j → %s', (name, expected) => {
    expect(quoteTableName(name)).toBe(expected);
  });
});

describe('tableAction', () => {
  const names = ['pets', 'my table', 'two  spaces', 'say "hi"', '"quoted"', '[x y]', '`tick` it', "it's", 'semi;', ' padded ', 'tab\there', 'café crème'];

  it.each(names)('the environment reads back %j from the object the buttons send', (name) => {
    for (const type of ['DESCRIBE', 'SAMPLE'] as const) {
      expect(normalizeAction(tableAction(type, name))).toEqual({ type, table: name });
    }
  });

  it.each(names)('and from the same action written as text: %j', (name) => {
    expect(parseAction(`DESCRIBE ${quoteTableName(name)}`)).toEqual({ type: 'DESCRIBE', table: name });
  });

  it('sends a bare name, as before, for a plain identifier', () => {
    expect(tableAction('SAMPLE', 'singer')).toEqual({ type: 'SAMPLE', table: 'singer' });
  });
});
