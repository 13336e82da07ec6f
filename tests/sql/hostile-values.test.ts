/**
 * Hostile values through the worker executor: huge cells come back clipped and marked (full length and hash
 * stated), small enough to pass around (measured by the JSON of what crossed, never by time), and the same
 * executor answers the next query. Sizes, not timings, are asserted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fnv1a64Bytes, parseClipMarker } from '../../src/sql/clip.ts';
import { VALUE_LIMITS } from '../../src/sql/limits.ts';
import { createNodeSqlExecutor } from '../../src/sql/node-worker.ts';
import { SqlError, type QueryResult } from '../../src/sql/types.ts';
import type { WorkerSqlExecutor } from '../../src/sql/worker-executor.ts';
import { tinyDatabaseBytes } from '../fixtures/tiny-dataset.ts';

/** What crossed from the worker, as JSON (BLOBs as arrays of numbers, as a transcript would hold them). */
function jsonSize(result: QueryResult): number {
  return JSON.stringify(result, (_key, v: unknown) => (v instanceof Uint8Array ? Array.from(v) : v)).length;
}

const TWO_MB = 2_000_000;

describe('hostile values through WorkerSqlExecutor', () => {
  let executor: WorkerSqlExecutor;

  beforeAll(async () => {
    // Generous time limit: these statements are slow on a busy machine, and this file tests sizes, not speed.
    executor = createNodeSqlExecutor({ limits: { timeoutMs: 60_000 } });
    await executor.load('db', await tinyDatabaseBytes());
  });
  afterAll(() => executor.close());

  async function stillWorks(): Promise<void> {
    expect((await executor.query('db', 'SELECT count(*) FROM singer')).rows).toEqual([[5]]);
  }

  it('clips a 90M-character cell, marks it with its length and the hash of the whole value', async () => {
    const r = await executor.query('db', "SELECT printf('%.*c', 90000000, char(1)) AS v, 7 AS n");
    const marker = parseClipMarker(r.rows[0][0] as string);
    expect(marker).toEqual({ kind: 'text', prefix: '\u0001'.repeat(VALUE_LIMITS.cellChars), chars: 90_000_000, hash: fnv1a64Bytes(new Uint8Array(90_000_000).fill(1)) });
    expect(r.rows[0][1]).toBe(7);
    expect(r.clippedCells).toBe(1);
    expect(r.truncated).toBe(false);
    expect(jsonSize(r)).toBeLessThan(TWO_MB);
    await stillWorks();
  });

  it('turns randomblob(50000000) into a marker in bytes, not 50 MB', async () => {
    const r = await executor.query('db', 'SELECT randomblob(50000000)');
    expect(parseClipMarker(r.rows[0][0] as string)).toMatchObject({ kind: 'blob', bytes: 50_000_000 });
    expect(jsonSize(r)).toBeLessThan(TWO_MB);
    await stillWorks();
  });

  it('hashes a large BLOB over all its bytes', async () => {
    const r = await executor.query('db', 'SELECT zeroblob(3000000), zeroblob(3000001)');
    expect(r.rows[0][0]).toBe(`[blob: 3000000 bytes, fnv1a64 ${fnv1a64Bytes(new Uint8Array(3_000_000))}]`);
    expect(r.rows[0][0]).not.toBe(r.rows[0][1]);
  });

  it('answers printf of 140M characters with a marker or a clear error, and keeps working', async () => {
    let outcome: string;
    try {
      const r = await executor.query('db', "SELECT printf('%.*c', 140000000, 'x')");
      expect(jsonSize(r)).toBeLessThan(TWO_MB);
      outcome = JSON.stringify(parseClipMarker(r.rows[0][0] as string));
    } catch (e) {
      expect(e).toBeInstanceOf(SqlError);
      outcome = (e as SqlError).kind;
    }
    // Where the host can hold the string, the marker; otherwise too-large (or the worker replaced after a crash).
    expect(outcome).toMatch(/"chars":140000000|too-large|crashed|timeout/);
    await stillWorks();
  });

  it('keeps a result of many long rows under the character budget and says why it stopped', async () => {
    const r = await executor.query('db', "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 5000) SELECT printf('%.*c', 100000, 'y') FROM c");
    expect(r).toMatchObject({ truncated: true, truncatedBy: 'chars' });
    expect(r.clippedCells).toBe(r.rows.length);
    expect(jsonSize(r)).toBeLessThan(TWO_MB);
    await stillWorks();
  });

  it('bounds the message of an error about a huge statement', async () => {
    const huge = `SELECT ${'x'.repeat(200_000)} FROM`;
    let message = '';
    try {
      await executor.query('db', huge);
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message.length).toBeGreaterThan(0);
    expect(message.length).toBeLessThanOrEqual(VALUE_LIMITS.errorChars);
    await stillWorks();
  });
});
