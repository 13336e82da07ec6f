/**
 * Free play on a person's own SQLite file: the dataset it makes (one database, one question marked `freePlay`),
 * an episode on it (queries work; no correctness or progress reward, said plainly), and the clear errors for a file
 * that is empty, not SQLite, damaged or without tables.
 */
import initSqlJs from 'sql.js';
import { describe, expect, it } from 'vitest';
import { DatasetError } from '../../src/data/bundle.ts';
import { buildFreePlayDataset, FREE_PLAY_QUESTION_ID, freePlayDbId, isSqliteHeader, withoutWalMode } from '../../src/data/free-play.ts';
import { SqlEnv } from '../../src/env/env.ts';
import { tinyDatabaseBytes, useTinyDataset } from '../fixtures/tiny-dataset.ts';

const fixture = useTinyDataset();

describe('freePlayDbId', () => {
  const cases: Array<[string, string]> = [
    ['chinook.sqlite', 'chinook'],
    ['My Music.db', 'My_Music'],
    ['C:\\data\\sales.2024.sqlite3', 'sales_2024'],
    ['no-extension', 'no-extension'],
    ['.sqlite', 'database'],
    ['ünïcode.db', 'n_code'],
  ];
  it.each(cases)('%s → %s', (name, id) => expect(freePlayDbId(name)).toBe(id));
});

describe('buildFreePlayDataset', () => {
  it('makes a one-database dataset whose only question is free play', async () => {
    const dataset = await buildFreePlayDataset('mine', 'concerts.sqlite', await tinyDatabaseBytes(), fixture.executor);
    expect(dataset.name).toBe('mine');
    expect(dataset.databases).toEqual([{ id: 'concerts', file: 'db/concerts.sqlite', tables: ['singer', 'concert', 'performs'] }]);
    expect(dataset.questions).toHaveLength(1);
    const [question] = dataset.questions;
    expect(question).toMatchObject({ id: FREE_PLAY_QUESTION_ID, dbId: 'concerts', freePlay: true, split: 'train', goldResult: { columns: [], rows: [] } });
    expect(question.question).toMatch(/no gold answer, so there is no correctness reward/);
    expect(dataset.description).toMatch(/no correctness reward/);
    await expect(dataset.loadDatabase('other')).rejects.toBeInstanceOf(DatasetError);
  });

  it('plays: queries answer, and neither progress nor correctness is ever rewarded', async () => {
    const dataset = await buildFreePlayDataset('mine', 'concerts.sqlite', await tinyDatabaseBytes(), fixture.executor);
    const env = new SqlEnv(dataset, fixture.executor);
    const reset = await env.reset({ seed: 1 });
    expect(reset.info.questionId).toBe(FREE_PLAY_QUESTION_ID);
    expect(reset.observation.tables).toContain('singer');
    const q = await env.step('QUERY SELECT count(*) FROM singer');
    expect(q.observation.result?.rows).toEqual([[5]]);
    expect(q.info.components).toMatchObject({ correctness: 0, progress: 0 });
    // Environment v3 pays nothing for activity: a query costs its step, like every other step.
    expect(q.info.components.operational).toBe(-0.01);
    const a = await env.step('ANSWER 5');
    expect(a.done).toBe(true);
    expect(a.info.components.correctness).toBe(0);
    expect(a.observation.text).toContain('no gold answer');
  });

  it('opens a file left in WAL mode', async () => {
    const bytes = await tinyDatabaseBytes();
    const wal = bytes.slice();
    wal[18] = 2;
    wal[19] = 2;
    expect(withoutWalMode(bytes)).toBe(bytes);
    expect(withoutWalMode(wal)[18]).toBe(1);
    const dataset = await buildFreePlayDataset('wal', 'wal.db', wal, fixture.executor);
    expect(dataset.databases[0].tables).toContain('singer');
  });

  const text = (s: string): Uint8Array => new TextEncoder().encode(s);
  const cases: Array<[string, () => Promise<Uint8Array>, RegExp]> = [
    ['an empty file', async () => new Uint8Array(0), /'f\.db' is empty/],
    ['a text file', async () => text('name,age\nAna,31\n'), /'f\.db' is not a SQLite database/],
    ['a damaged database', async () => new Uint8Array([...text('SQLite format 3\u0000'), ...new Uint8Array(2000).fill(7)]), /'f\.db' starts like a SQLite database but SQLite cannot read it/],
    [
      'a database without tables',
      async () => {
        const SQL = await initSqlJs();
        const db = new SQL.Database();
        db.run('PRAGMA user_version = 1');
        const bytes = db.export();
        db.close();
        return bytes;
      },
      /has no tables/,
    ],
  ];
  it.each(cases)('%s gives a clear DatasetError', async (_name, make, message) => {
    const attempt = buildFreePlayDataset('f', 'f.db', await make(), fixture.executor);
    await expect(attempt).rejects.toBeInstanceOf(DatasetError);
    await expect(attempt).rejects.toThrow(message);
  });

  it('recognises the SQLite header', async () => {
    expect(isSqliteHeader(await tinyDatabaseBytes())).toBe(true);
    expect(isSqliteHeader(text('SQLite format 3'))).toBe(false);
  });
});
