/** `tablesNamedBy` (src/env/provenance.ts): the tables a gold SQL names, as the database spells them. */
import { describe, expect, it } from 'vitest';
import { tablesNamedBy } from '../../src/env/provenance.ts';

describe('tablesNamedBy', () => {
  it('finds tables by any case or quoting, in order of first mention, once each, and not inside strings', () => {
    const tables = ['Singer', 'concert', 'singer_in_concert', 'stadium'];
    expect(tablesNamedBy(`SELECT T1.name FROM "SINGER_IN_CONCERT" AS T2 JOIN singer AS T1 ON T1.id = T2.id JOIN Singer`, tables)).toEqual(['singer_in_concert', 'Singer']);
    expect(tablesNamedBy(`SELECT 'stadium' FROM concert`, tables)).toEqual(['concert']);
    expect(tablesNamedBy('SELECT 1', tables)).toEqual([]);
  });
});
