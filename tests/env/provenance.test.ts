/** Literal blanking (src/env/provenance.ts); `tablesNamedBy` is tested as the Oracle's `tablesUsed`. */
import { describe, expect, it } from 'vitest';
import { blankLiteralCells, statementLiterals } from '../../src/env/provenance.ts';

describe('statementLiterals', () => {
  it('collects numbers (signed too), strings, double-quoted strings and numeric strings as numbers', () => {
    const l = statementLiterals(`SELECT 6, -2.5, 'France', "Spain", '7' + 0 FROM t WHERE x = 'it''s'`);
    expect([...l.numbers].sort((a, b) => a - b)).toEqual([-2.5, 0, 2.5, 6, 7]);
    expect([...l.strings].sort()).toEqual(['7', 'France', 'Spain', "it's"]);
  });
});

describe('blankLiteralCells', () => {
  it('blanks exactly the cells the statement wrote, and says when nothing is left from the database', () => {
    const sql = "SELECT 6, name, 'x' FROM singer";
    const r = blankLiteralCells({ columns: ['a', 'b', 'c'], rows: [[6, 'Ana', 'x'], [7, 'Bo', 'y']] }, sql);
    expect(r.blanked).toBe(2);
    expect(r.allLiteral).toBe(false);
    expect(r.table.rows[0][1]).toBe('Ana');
    expect(r.table.rows[0][0]).toBeInstanceOf(Uint8Array);
    expect(r.table.rows[0][2]).toBeInstanceOf(Uint8Array);
    expect(r.table.rows[1]).toEqual([7, 'Bo', 'y']);
    // Every blanked cell is distinct, so blanked cells never pair with each other in a similarity.
    expect(r.table.rows[0][0]).not.toEqual(r.table.rows[0][2]);
    expect(blankLiteralCells({ columns: ['a', 'b'], rows: [[6, null]] }, 'SELECT 6, NULL FROM t LIMIT 1').allLiteral).toBe(true);
    expect(blankLiteralCells({ columns: ['a'], rows: [[null]] }, 'SELECT NULL FROM t').allLiteral).toBe(true);
    expect(blankLiteralCells({ columns: ['a'], rows: [] }, 'SELECT 6 FROM t WHERE 0').allLiteral).toBe(false);
    expect(blankLiteralCells({ columns: ['n'], rows: [[5]] }, 'SELECT count(*) FROM singer').allLiteral).toBe(false);
  });
});
