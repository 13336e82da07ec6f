/**
 * A bundle's questions are checked before the environment grades against them (src/data/manifest-check.ts): each
 * malformed field is refused with a message naming the question, and tie groups must hold the stored gold result as
 * one of their legal results. Every manifest here is written by hand, so what is legal is decided by the rule (rows
 * cut into consecutive pieces of each segment's `take`, each piece drawn from that segment's pool), not by the module.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DatasetError } from '../../src/data/bundle.ts';
import { readBundleFolder } from '../../src/data/bundle-node.ts';
import { isJsonSqlValue, manifestQuestionProblem, manifestQuestionsProblem } from '../../src/data/manifest-check.ts';
import { DATASET_FORMAT_VERSION } from '../../src/data/types.ts';

const DBS = new Set(['concerts']);

/** "Singers by age, oldest first, top 3": Bo and Di tie at 45, so the third row may be either. */
function question(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 'q-7',
    dbId: 'concerts',
    question: 'The three oldest singers?',
    gold: 'SELECT name, age FROM singer ORDER BY age DESC LIMIT 3',
    goldResult: { columns: ['name', 'age'], rows: [['Al', 60], ['Cy', 52], ['Bo', 45]] },
    goldTies: { segments: [{ take: 1, pool: [['Al', 60]] }, { take: 1, pool: [['Cy', 52]] }, { take: 1, pool: [['Bo', 45], ['Di', 45]] }] },
    orderMatters: true,
    difficulty: 'medium',
    split: 'eval',
    ...overrides,
  };
}

const problem = (q: unknown) => manifestQuestionProblem(q, 4, DBS);

describe('manifest questions: what is accepted', () => {
  it('a question with ties whose stored result is one of the legal ones, and one without ties', () => {
    expect(problem(question())).toBeNull();
    expect(problem(question({ goldTies: undefined }))).toBeNull();
    expect(manifestQuestionsProblem([question(), question({ id: 'q-8', goldTies: undefined })], DBS)).toBeNull();
  });

  it('a stored result that took the other tied row, and rows in any order inside one tie group', () => {
    expect(problem(question({ goldResult: { columns: ['name', 'age'], rows: [['Al', 60], ['Cy', 52], ['Di', 45]] } }))).toBeNull();
    const together = { segments: [{ take: 3, pool: [['Di', 45], ['Bo', 45], ['Cy', 45]] }] };
    expect(problem(question({ goldTies: together, goldResult: { columns: ['name', 'age'], rows: [['Bo', 45], ['Cy', 45], ['Di', 45]] } }))).toBeNull();
  });

  it('the empty result, BLOBs as even-length hex, nulls, negative and fractional numbers', () => {
    expect(problem(question({ goldTies: undefined, goldResult: { columns: ['x'], rows: [] } }))).toBeNull();
    for (const cell of [null, -1.5, 0, '', 'text', { $blob: '' }, { $blob: '00ff' }, { $blob: 'ABcd' }]) expect(isJsonSqlValue(cell), JSON.stringify(cell)).toBe(true);
  });
});

describe('manifest questions: what is refused, and the message', () => {
  it.each<[string, Record<string, unknown>, RegExp]>([
    ['no id', { id: 7 }, /^question 4 has no text 'id'$/],
    ['no question text', { question: null }, /^question 4 \('q-7'\) has no text 'question'$/],
    ['no gold SQL', { gold: undefined }, /has no text 'gold'/],
    ['an unknown database', { dbId: 'elsewhere' }, /names database 'elsewhere', which the manifest does not list/],
    ['orderMatters not a boolean', { orderMatters: 'yes' }, /has no true\/false 'orderMatters'/],
    ['no goldResult', { goldResult: null }, /has no goldResult with a list of column names/],
    ['a column name that is no text', { goldResult: { columns: ['name', 2], rows: [] } }, /list of column names/],
    ['a gold row of the wrong width', { goldTies: undefined, goldResult: { columns: ['name', 'age'], rows: [['Al', 60], ['Cy']] } }, /goldResult row 1 is not a row of 2 values/],
    ['a cell that is an object', { goldTies: undefined, goldResult: { columns: ['x'], rows: [[{ x: 1 }]] } }, /goldResult row 0 cell 0 is not an SQL value/],
    ['a BLOB of odd-length hex', { goldTies: undefined, goldResult: { columns: ['x'], rows: [[{ $blob: 'abc' }]] } }, /row 0 cell 0 is not an SQL value/],
    ['a BLOB that is not hex', { goldTies: undefined, goldResult: { columns: ['x'], rows: [[{ $blob: 'zz' }]] } }, /row 0 cell 0 is not an SQL value/],
    ['a BLOB with another key beside it', { goldTies: undefined, goldResult: { columns: ['x'], rows: [[{ $blob: '00', more: 1 }]] } }, /row 0 cell 0 is not an SQL value/],
    ['ties without segments', { goldTies: { segments: [] } }, /goldTies has no list of segments/],
    ['a segment that is no object', { goldTies: { segments: [1] } }, /goldTies segment 0 is not an object/],
    ['a pool row of the wrong width', { goldTies: { segments: [{ take: 3, pool: [['Al', 60], ['Cy', 52], ['Bo']] }] } }, /goldTies segment 0 pool row 2 is not a row of 2 values/],
    ['a take of 0', { goldTies: { segments: [{ take: 0, pool: [['Al', 60]] }, { take: 3, pool: [['Al', 60], ['Cy', 52], ['Bo', 45]] }] } }, /segment 0 takes 0 rows of a pool of 1/],
    ['a take over the pool', { goldTies: { segments: [{ take: 4, pool: [['Al', 60], ['Cy', 52], ['Bo', 45]] }] } }, /segment 0 takes 4 rows of a pool of 3/],
    ['a fractional take', { goldTies: { segments: [{ take: 1.5, pool: [['Al', 60], ['Cy', 52]] }] } }, /segment 0 takes 1\.5 rows/],
    // Takes that add up to fewer rows than the gold result: the last row would be graded against nothing.
    ['takes short of the result', { goldTies: { segments: [{ take: 1, pool: [['Al', 60]] }, { take: 1, pool: [['Cy', 52]] }] } }, /goldTies take 2 rows, the gold result has 3/],
    ['takes past the result', { goldTies: { segments: [{ take: 2, pool: [['Al', 60], ['X', 1]] }, { take: 1, pool: [['Cy', 52]] }, { take: 1, pool: [['Bo', 45]] }] } }, /goldTies take 4 rows, the gold result has 3/],
    // Every row is in some pool, but Cy (52) sits in the segment of the 45s: not a cut the ties allow.
    ['a stored row in the wrong segment', { goldTies: { segments: [{ take: 1, pool: [['Al', 60]] }, { take: 1, pool: [['Bo', 45]] }, { take: 1, pool: [['Cy', 52], ['Di', 45]] }] } }, /the gold result is not one of the results its goldTies allow/],
    // A row the pool holds once, stored twice.
    ['a pool row taken twice', { goldResult: { columns: ['name', 'age'], rows: [['Bo', 45], ['Bo', 45]] }, goldTies: { segments: [{ take: 2, pool: [['Bo', 45], ['Di', 45]] }] } }, /not one of the results its goldTies allow/],
    // 45 and '45' are different SQL values (INTEGER vs TEXT).
    ['a number stored where the pool has text', { goldResult: { columns: ['name', 'age'], rows: [['Al', 60], ['Cy', 52], ['Bo', '45']] } }, /not one of the results its goldTies allow/],
  ])('%s', (_what, overrides, message) => {
    expect(problem(question(overrides))).toMatch(message);
  });

  it('a question that is no object, and the first bad question of a list', () => {
    expect(problem('q')).toBe('question 4 is not an object');
    expect(manifestQuestionsProblem([question(), question({ id: 'q-9', dbId: 'x' })], DBS)).toMatch(/^question 1 \('q-9'\) names database 'x'/);
  });
});

describe('reading a bundle whose manifest is malformed', () => {
  it('refuses it with DatasetError naming the question and the fix, before any database is read', async () => {
    const root = mkdtempSync(join(tmpdir(), 'sqlenv-manifest-'));
    try {
      const bad = question({ goldTies: { segments: [{ take: 3, pool: [['Al', 60], ['Cy', 52], ['Zed', 1]] }] } });
      writeFileSync(join(root, 'manifest.json'), JSON.stringify({ format: DATASET_FORMAT_VERSION, name: 'hostile', description: '', license: '', databases: [{ id: 'concerts', file: 'db/concerts.sqlite', tables: [] }], questions: [question(), bad] }));
      const read = readBundleFolder(root);
      await expect(read).rejects.toThrow(DatasetError);
      await expect(read).rejects.toThrow(/question 1 \('q-7'\): the gold result is not one of the results its goldTies allow\. Make it again/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
