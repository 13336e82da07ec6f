/**
 * The engine applies the value budgets (src/sql/limits.ts) before anything leaves it: long text and BLOB cells
 * become markers, wide rows get narrower cells, rows stop at the character budget with the reason stated, long
 * column names are clipped, and a value sql.js cannot materialise becomes SqlError('too-large').
 */
import initSqlJs, { type SqlJsStatic, type Statement } from 'sql.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseClipMarker } from '../../src/sql/clip.ts';
import { SqlEngine } from '../../src/sql/engine.ts';
import { RESULT_BUDGET, VALUE_LIMITS } from '../../src/sql/limits.ts';
import { cellCost, readStatement } from '../../src/sql/read-result.ts';
import { SqlError, type QueryResult } from '../../src/sql/types.ts';
import { tinyDatabaseBytes } from '../fixtures/tiny-dataset.ts';

let SQL: SqlJsStatic;
let engine: SqlEngine;

beforeAll(async () => {
  SQL = await initSqlJs();
  engine = new SqlEngine(SQL);
  engine.load('db', await tinyDatabaseBytes());
});

const query = (sql: string, maxRows: number = VALUE_LIMITS.rows): QueryResult => engine.query('db', sql, { maxRows });
const totalCost = (r: QueryResult): number => r.rows.reduce((n, row) => n + row.reduce<number>((m, v) => m + cellCost(v), 0), 0);
const counting = (n: number): string => `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ${n}) `;

describe('SqlEngine value budgets', () => {
  it('keeps ordinary results whole and says nothing was clipped', () => {
    const r = query('SELECT name, net_worth FROM singer ORDER BY singer_id');
    expect(r.rows[1]).toEqual(['Bo', null]);
    expect(r).toMatchObject({ truncated: false, truncatedBy: null, clippedCells: 0 });
  });

  it('clips a long text cell to cellChars with its full length and hash, and counts it', () => {
    const r = query("SELECT printf('%.*c', 100000, 'x') AS big, 'small' AS s");
    const marker = parseClipMarker(r.rows[0][0] as string);
    expect(marker).toMatchObject({ kind: 'text', chars: 100_000 });
    expect(marker?.kind === 'text' && marker.prefix).toBe('x'.repeat(VALUE_LIMITS.cellChars));
    expect(r.rows[0][1]).toBe('small');
    expect(r.clippedCells).toBe(1);
  });

  it('gives different long values different markers', () => {
    const r = query("SELECT printf('%.*c', 9000, 'x') || 'a', printf('%.*c', 9000, 'x') || 'b'");
    expect(r.rows[0][0]).not.toBe(r.rows[0][1]);
  });

  it('turns a long BLOB into a marker string and keeps a short one as bytes', () => {
    const r = query('SELECT zeroblob(5000), x\'0102\'');
    expect(parseClipMarker(r.rows[0][0] as string)).toMatchObject({ kind: 'blob', bytes: 5_000 });
    expect(r.rows[0][1]).toEqual(new Uint8Array([1, 2]));
  });

  it('stops rows at the character budget and says so', () => {
    const r = query(`${counting(1000)}SELECT printf('%.*c', ${VALUE_LIMITS.cellChars}, 'x') FROM c`);
    expect(r.truncatedBy).toBe('chars');
    expect(r.truncated).toBe(true);
    expect(r.rows).toHaveLength(Math.floor(VALUE_LIMITS.resultChars / VALUE_LIMITS.cellChars));
    expect(totalCost(r)).toBeLessThanOrEqual(VALUE_LIMITS.resultChars);
  });

  it('stops rows at maxRows and says so', () => {
    const r = query(`${counting(50)}SELECT x FROM c`, 10);
    expect(r).toMatchObject({ truncated: true, truncatedBy: 'rows' });
    expect(r.rows).toHaveLength(10);
  });

  it('narrows the cells of a 2,000-column row so the one row fits the budget', () => {
    const cells = Array.from({ length: 2_000 }, (_, i) => `printf('%.*c', 5000, '${String.fromCharCode(97 + (i % 26))}')`);
    const r = query(`SELECT ${cells.join(', ')}`);
    expect(r.rows).toHaveLength(1);
    expect(r.clippedCells).toBe(2_000);
    expect(totalCost(r)).toBeLessThanOrEqual(VALUE_LIMITS.resultChars);
    expect(parseClipMarker(r.rows[0][0] as string)).toMatchObject({ kind: 'text', chars: 5_000 });
  });

  it('clips long column names', () => {
    const r = query(`SELECT 1 AS "${'n'.repeat(100_000)}"`);
    expect(parseClipMarker(r.columns[0])).toMatchObject({ kind: 'text', chars: 100_000 });
    expect(r.columns[0].length).toBeLessThanOrEqual(VALUE_LIMITS.columnNameChars + 60);
  });

  it('applies the budgets to SAMPLE too', () => {
    const local = new SqlEngine(SQL);
    const db = new SQL.Database();
    db.run("CREATE TABLE t (a TEXT); INSERT INTO t VALUES (printf('%.*c', 50000, 'q'))");
    local.load('t', db.export());
    db.close();
    const r = local.sample('t', 't', 5);
    expect(parseClipMarker(r.rows[0][0] as string)).toMatchObject({ kind: 'text', chars: 50_000 });
    expect(r.clippedCells).toBe(1);
    local.close();
  });

  it('honours a smaller budget given to the engine', async () => {
    const small = new SqlEngine(SQL, { ...RESULT_BUDGET, cellChars: 8, resultChars: 100 });
    small.load('db', await tinyDatabaseBytes());
    const r = small.query('db', `${counting(100)}SELECT 'abcdefghijkl' FROM c`, { maxRows: 1_000 });
    expect(r.rows[0][0]).toMatch(/^abcdefgh… \[cut: 12 characters, fnv1a64 [0-9a-f]{16}\]$/);
    expect(r.truncatedBy).toBe('chars');
    expect(totalCost(r)).toBeLessThanOrEqual(100);
    small.close();
  });
});

describe('readStatement on values sql.js cannot materialise', () => {
  /** A statement whose second row fails the way sql.js does for a text over V8's string limit. */
  function failingStatement(error: Error): Statement {
    let step = 0;
    const fake = {
      getColumnNames: () => ['v'],
      step: () => ++step <= 2,
      get: () => {
        if (step === 2) throw error;
        return ['fine'];
      },
    };
    return fake as unknown as Statement;
  }

  it.each([new Error('Cannot create a string longer than 0x1fffffe8 characters'), new RangeError('Invalid string length'), new RangeError('Array buffer allocation failed')])(
    'reports %s as SqlError(too-large) naming the row',
    (error) => {
      let caught: unknown;
      try {
        readStatement(failingStatement(error), 10, RESULT_BUDGET);
      } catch (e) {
        caught = e;
      }
      expect(caught).toBeInstanceOf(SqlError);
      expect((caught as SqlError).kind).toBe('too-large');
      expect((caught as SqlError).message).toMatch(/Row 2 of the result holds a value too large to read.*substr/);
    },
  );
});
