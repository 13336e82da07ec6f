/**
 * The "read as" line for answers that go to the environment as typed (src/ui/play/answer-inline.ts). Expected
 * shapes are written by hand from the reading rules in src/env/answer-read.ts's header.
 */
import { describe, expect, it } from 'vitest';
import { inlineReading } from '../../src/ui/play/answer-inline.ts';

describe('inlineReading', () => {
  it('reads a one-line list by its separator, and says the whole text is tried as one value too', () => {
    expect(inlineReading('Rex, Tom, Ann')).toEqual({ summary: 'a list of 3 values (comma-separated)', rows: [['Rex'], ['Tom'], ['Ann']], columns: 1, alsoOneValue: true });
    expect(inlineReading('Rex; Tom')?.summary).toBe('a list of 2 values (semicolon-separated)');
    expect(inlineReading('[a, b]')?.rows).toEqual([['a'], ['b']]);
  });

  it('reads JSON rows and lists with their shape, numbers and NULLs as the environment compares them', () => {
    expect(inlineReading('[["Rex", 3], ["Tom", null]]')).toMatchObject({ summary: '2 rows × 2 columns (JSON)', rows: [['Rex', '3'], ['Tom', 'NULL']], columns: 2 });
    expect(inlineReading('[[1]]')?.summary).toBe('1 row × 1 column (JSON)');
    expect(inlineReading('[7]')?.summary).toBe('a list of 1 value (JSON)');
    expect(inlineReading('[]')?.summary).toBe('a list of 0 values (JSON)');
    expect(inlineReading("[('Rex', 3)]")?.summary).toBe('1 row × 2 columns (Python repr)');
  });

  it('says nothing for a value that reads as itself, and spells out a literal that does not', () => {
    expect(inlineReading('42')).toBeNull();
    expect(inlineReading('Smith')).toBeNull();
    expect(inlineReading('"Smith"')).toMatchObject({ summary: 'one value (JSON)', rows: [['Smith']] });
  });
});
