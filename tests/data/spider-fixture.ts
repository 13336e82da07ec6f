/**
 * A tiny folder in Spider's official layout, built in a temp dir for importer tests: two small SQLite databases made
 * with sql.js, a corrupt one, and dev.json / train_spider.json / train_others.json whose questions hit every path of
 * the importer (kept, SQL error, empty result, too many rows, missing and unreadable database). Nothing from Spider
 * itself is copied: the schema and questions are made up.
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import initSqlJs from 'sql.js';
import { emptySpiderSql, type SpiderSql } from '../../src/data/spider-sql.ts';

export interface FixtureExample {
  db_id: string;
  question: string;
  query: string;
  sql?: SpiderSql;
}

/** `SELECT count(*) FROM pets`, in the parsed form dev.json carries (an easy query). */
export const COUNT_PETS_SQL: SpiderSql = { ...emptySpiderSql(), select: [false, [[3, [0, [0, 0, false], null]]]] };

export const FIXTURE_DEV: FixtureExample[] = [
  { db_id: 'zoo', question: 'How many pets are there?', query: 'SELECT count(*) FROM pets', sql: COUNT_PETS_SQL },
  { db_id: 'zoo', question: 'Names of pets by age.', query: 'SELECT name FROM pets ORDER BY age DESC' },
  { db_id: 'zoo', question: 'A broken query.', query: 'SELECT nonexistent_column FROM pets' },
  { db_id: 'zoo', question: 'Pets older than 100.', query: 'SELECT name FROM pets WHERE age > 100' },
  { db_id: 'ghost', question: 'A database that is not there.', query: 'SELECT 1' },
  { db_id: 'broken', question: 'A database file that is not SQLite.', query: 'SELECT 1' },
  { db_id: 'zoo', question: 'Count to 10001.', query: 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 10001) SELECT x FROM c' },
];

export const FIXTURE_TRAIN: FixtureExample[] = [
  { db_id: 'shop', question: 'Which items cost more than the average?', query: 'SELECT item FROM sales WHERE price > (SELECT avg(price) FROM sales)' },
  { db_id: 'zoo', question: 'Owners with more than one pet.', query: 'SELECT owner, count(*) FROM pets GROUP BY owner HAVING count(*) > 1' },
];

export const FIXTURE_OTHERS: FixtureExample[] = [{ db_id: 'shop', question: 'How many sales?', query: 'SELECT count(*) FROM sales' }];

/** Writes the fixture folder and returns its path. `parts` leaves out pieces to test layout errors. */
export async function buildSpiderFixture(parts: { dev?: boolean; database?: boolean; train?: boolean } = {}): Promise<string> {
  const { dev = true, database = true, train = true } = parts;
  const dir = await mkdtemp(join(tmpdir(), 'sqlenv-spider-'));
  if (database) {
    const SQL = await initSqlJs();
    const zoo = new SQL.Database();
    zoo.run('CREATE TABLE pets (id INTEGER PRIMARY KEY, name TEXT, age INTEGER, owner TEXT)');
    zoo.run("INSERT INTO pets VALUES (1, 'Rex', 3, 'Ann'), (2, 'Tom', 5, 'Ann'), (3, 'Kit', 1, 'Bob')");
    const shop = new SQL.Database();
    shop.run('CREATE TABLE sales (id INTEGER PRIMARY KEY, item TEXT, price REAL)');
    shop.run('CREATE TABLE staff (id INTEGER PRIMARY KEY, name TEXT)');
    shop.run("INSERT INTO sales VALUES (1, 'tea', 2.5), (2, 'cake', 4.0), (3, 'pie', 6.5)");
    for (const [id, db] of [['zoo', zoo], ['shop', shop]] as const) {
      await mkdir(join(dir, 'database', id), { recursive: true });
      await writeFile(join(dir, 'database', id, `${id}.sqlite`), db.export());
      db.close();
    }
    await mkdir(join(dir, 'database', 'broken'), { recursive: true });
    await writeFile(join(dir, 'database', 'broken', 'broken.sqlite'), 'this is not an SQLite file, just text that is long enough to fill a header and more');
  }
  if (dev) await writeFile(join(dir, 'dev.json'), JSON.stringify(FIXTURE_DEV));
  if (train) {
    await writeFile(join(dir, 'train_spider.json'), JSON.stringify(FIXTURE_TRAIN));
    await writeFile(join(dir, 'train_others.json'), JSON.stringify(FIXTURE_OTHERS));
  }
  return dir;
}
