/**
 * Perturbed copies of a database, for measuring a query's closeness to the gold the way Spider's test-suite metric
 * decides semantic equality (Zhong, Yu & Klein, EMNLP 2020: a query is right when it agrees with the gold on many
 * databases). The environment runs a query and the gold SQL on each copy and keeps the smallest similarity, so a
 * result that was typed (a literal in any spelling) or came from connection state or randomness agrees with the
 * gold on the real database at best, not on the copies.
 *
 * COPY_PLANS copies per database content, each seeded from a hash of the database's bytes (so the same database
 * always gets the same copies, across runs and processes):
 *   0 'rows'   every table keeps a seeded subset of its rows (about 2/3);
 *   1 'values' one injective map applied to every stored value of every table: numbers + K, canonical integer
 *              texts ('30') as the number + K in text, other texts with a seeded suffix, BLOBs with a byte appended;
 *              equal values stay equal across tables (joins and groups survive), but no literal matches any more;
 *   2 'both'   rows removed and values changed, with other seeds;
 *   3 'shuffle' every column's values permuted among its table's rows (one seeded permutation per column): the same
 *              values, literals included, in new combinations, so a gold whose answer rows removal and value maps
 *              cannot move (a count that is 0, the row of a maximum) moves here. A table whose constraints refuse
 *              the new combinations (a multi-column UNIQUE) is left as it is.
 *
 * The gold's own text literals come from the question ("singers from 'France'"), so an agent may write them too:
 * on a copy whose values changed, every string literal of the statement and of the gold that is one of the gold's
 * string literals is rewritten through the same map (`rewriteGoldLiterals`) — 'France' becomes the copy's spelling
 * of France, `LIKE 'Fra%'` becomes 'Fra%' plus the suffix, which still matches — so the gold still finds its rows
 * there and an honest query that filters as the question says still agrees, while every other literal (the answer
 * typed in) stays unmapped and matches nothing. Numbers in SQL are never rewritten (LIMIT 1, count(*) > 2).
 *
 * Built without firing triggers: each trigger's SQL is read from sqlite_master, the trigger dropped, the tables
 * perturbed (foreign keys off, CHECK constraints ignored: an injective map keeps UNIQUE and NOT NULL), and the
 * trigger recreated with the same SQL. Each table is rewritten through a temporary copy (delete all, insert the
 * kept rows mapped), so shifted keys never collide mid-update. A table SQLite cannot rewrite (a virtual table) is
 * left as it is, inside a savepoint. The result is exported to bytes and reopened fresh with `PRAGMA query_only`,
 * so its connection state (total_changes(), changes(), last_insert_rowid()) is that of a fresh connection, as the
 * real database's is.
 */
import type { Database, SqlJsStatic } from 'sql.js';
import { quoteIdentifier } from './quote.ts';
import { significantTokens } from './tokenize.ts';

export type CopyPlanName = 'rows' | 'values' | 'both' | 'shuffle';

export interface CopyPlan {
  name: CopyPlanName;
  removeRows: boolean;
  changeValues: boolean;
  shuffleColumns: boolean;
}

export const COPY_PLANS: readonly CopyPlan[] = [
  { name: 'rows', removeRows: true, changeValues: false, shuffleColumns: false },
  { name: 'values', removeRows: false, changeValues: true, shuffleColumns: false },
  { name: 'both', removeRows: true, changeValues: true, shuffleColumns: false },
  { name: 'shuffle', removeRows: false, changeValues: false, shuffleColumns: true },
];

/** The seeded parameters of one copy. */
export interface CopySeeds {
  /** Added to every number (and to canonical integer texts). 11..1010, never 0. */
  shift: number;
  /** Appended to every other text: '~' and three seeded letters (never digits only, so no collision with numbers). */
  suffix: string;
  /** Seeds the row subset: a row is dropped when hash(seed, row number) % 3 == 0. */
  rowSeed: number;
}

/** FNV-1a over the bytes: the database content's seed. */
export function contentHash(bytes: Uint8Array): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < bytes.length; i++) {
    h ^= bytes[i];
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** mulberry32: a small seeded generator (the sql layer imports nothing from data). */
function generator(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The seeds of copy `index` of a database whose bytes hash to `hash`. */
export function copySeeds(hash: number, index: number): CopySeeds {
  const next = generator(hash ^ Math.imul(index + 1, 0x9e3779b9));
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  const suffix = `~${Array.from({ length: 3 }, () => letters[Math.floor(next() * 26)]).join('')}`;
  return { shift: 11 + Math.floor(next() * 1000), suffix, rowSeed: 1 + Math.floor(next() * 1_000_000) };
}

/** The copy's spelling of a stored text (the SQL map of `mappedValue`, in JavaScript). */
export function mapText(text: string, seeds: CopySeeds): string {
  if (/^[0-9]{1,15}$/.test(text) && String(Number(text)) === text) return String(Number(text) + seeds.shift);
  return `${text}${seeds.suffix}`;
}

/** The text of a string token ('…' or "…"), unescaped. */
function tokenText(token: string): string {
  const quote = token[0];
  return token.slice(1, -1).replaceAll(quote + quote, quote);
}

/**
 * The gold's string literals: its '…' strings, and "…" words that name no table or column (`lowerNames`), which
 * SQLite reads as strings.
 */
export function goldTextLiterals(goldSql: string, lowerNames: ReadonlySet<string>): Set<string> {
  const out = new Set<string>();
  for (const t of significantTokens(goldSql)) {
    if (t.kind === 'string' && t.text.startsWith("'")) out.add(tokenText(t.text));
    else if (t.kind === 'identifier' && t.text.startsWith('"') && !lowerNames.has(tokenText(t.text).toLowerCase())) out.add(tokenText(t.text));
  }
  return out;
}

/**
 * `sql` with each string literal that is one of `literals` (and each "…" word that is, and names no table or
 * column) replaced by its mapped spelling under `seeds`, as a '…' string. Everything else is kept byte for byte.
 */
export function rewriteGoldLiterals(sql: string, literals: ReadonlySet<string>, lowerNames: ReadonlySet<string>, seeds: CopySeeds): string {
  if (literals.size === 0) return sql;
  let out = '';
  let at = 0;
  for (const t of significantTokens(sql)) {
    const isString = t.kind === 'string' && t.text.startsWith("'");
    const isWord = t.kind === 'identifier' && t.text.startsWith('"') && t.text.length >= 2;
    if (!isString && !isWord) continue;
    const text = tokenText(t.text);
    if (!literals.has(text) || (isWord && lowerNames.has(text.toLowerCase()))) continue;
    out += `${sql.slice(at, t.start)}${sqlText(mapText(text, seeds))}`;
    at = t.start + t.text.length;
  }
  return out + sql.slice(at);
}

function sqlText(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/** The SQL expression that maps column `c` under `seeds` (see the header: injective over all values). */
function mappedValue(column: string, seeds: CopySeeds): string {
  const c = quoteIdentifier(column);
  const k = seeds.shift;
  return `CASE typeof(${c})
    WHEN 'integer' THEN ${c} + ${k}
    WHEN 'real' THEN ${c} + ${k}
    WHEN 'text' THEN CASE WHEN length(${c}) BETWEEN 1 AND 15 AND ${c} NOT GLOB '*[^0-9]*' AND CAST(CAST(${c} AS INTEGER) AS TEXT) = ${c}
      THEN CAST(CAST(${c} AS INTEGER) + ${k} AS TEXT) ELSE ${c} || ${sqlText(seeds.suffix)} END
    WHEN 'blob' THEN CAST(${c} || X'7E' AS BLOB)
    ELSE ${c} END`;
}

/** Whether the row numbered `rowid` (1, 2, … in the temporary copy) is kept: about 2 rows in 3. */
function keepRow(seeds: CopySeeds): string {
  return `((rowid * 2654435761 + ${seeds.rowSeed}) % 4294967291) % 3 <> 0`;
}

function rows(db: Database, sql: string): unknown[][] {
  return db.exec(sql)[0]?.values ?? [];
}

/** Rewrites one table under the plan; throws on anything SQLite refuses (the caller rolls the table back). */
function perturbTable(db: Database, table: string, plan: CopyPlan, seeds: CopySeeds): void {
  const columns = rows(db, `SELECT name FROM pragma_table_info(${sqlText(table)})`).map((r) => String(r[0]));
  if (columns.length === 0) return;
  const t = `main.${quoteIdentifier(table)}`;
  db.run('DROP TABLE IF EXISTS temp.sqlenv_perturb');
  db.run(`CREATE TEMP TABLE sqlenv_perturb AS SELECT ${columns.map(quoteIdentifier).join(', ')} FROM ${t}`);
  db.run(`DELETE FROM ${t}`);
  if (plan.shuffleColumns) {
    // Column k's value for row i is the value of the row ranked i by the seeded hash k (a permutation per column).
    columns.forEach((c, k) => {
      db.run(`DROP TABLE IF EXISTS temp.sqlenv_col${k}`);
      db.run(`CREATE TEMP TABLE sqlenv_col${k} (r INTEGER PRIMARY KEY, v)`);
      db.run(`INSERT INTO temp.sqlenv_col${k} SELECT row_number() OVER (ORDER BY ((rowid * ${2654435761 + 2 * k}) % 1000003 * ${1 + ((seeds.rowSeed + 7919 * k) % 997)} + ${seeds.rowSeed + k}) % 1000003, rowid), ${quoteIdentifier(c)} FROM temp.sqlenv_perturb`);
    });
    const joins = columns.map((_, k) => ` JOIN temp.sqlenv_col${k} AS c${k} ON c${k}.r = p.rowid`).join('');
    db.run(`INSERT INTO ${t} (${columns.map(quoteIdentifier).join(', ')}) SELECT ${columns.map((_, k) => `c${k}.v`).join(', ')} FROM temp.sqlenv_perturb AS p${joins}`);
    columns.forEach((_, k) => db.run(`DROP TABLE temp.sqlenv_col${k}`));
  } else {
    const values = columns.map((c) => (plan.changeValues ? mappedValue(c, seeds) : quoteIdentifier(c))).join(', ');
    const where = plan.removeRows ? ` WHERE ${keepRow(seeds)}` : '';
    db.run(`INSERT INTO ${t} (${columns.map(quoteIdentifier).join(', ')}) SELECT ${values} FROM temp.sqlenv_perturb${where}`);
  }
  db.run('DROP TABLE temp.sqlenv_perturb');
}

/** The bytes of copy `plan` of the database in `bytes`; triggers never fire (see the header). */
function perturbedBytes(sql: SqlJsStatic, bytes: Uint8Array, plan: CopyPlan, seeds: CopySeeds): Uint8Array {
  const db = new sql.Database(bytes);
  try {
    db.run('PRAGMA foreign_keys = OFF');
    db.run('PRAGMA ignore_check_constraints = ON');
    const triggers = rows(db, "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND sql IS NOT NULL ORDER BY rowid").map((r) => ({ name: String(r[0]), sql: String(r[1]) }));
    for (const trigger of triggers) db.run(`DROP TRIGGER ${quoteIdentifier(trigger.name)}`);
    const tables = rows(db, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND sql NOT LIKE 'CREATE VIRTUAL%' ORDER BY rowid").map((r) => String(r[0]));
    for (const table of tables) {
      db.run('SAVEPOINT sqlenv_table');
      try {
        perturbTable(db, table, plan, seeds);
        db.run('RELEASE sqlenv_table');
      } catch {
        // Left as it is: this copy still differs from the database in its other tables.
        db.run('ROLLBACK TO sqlenv_table');
        db.run('RELEASE sqlenv_table');
      }
    }
    for (const trigger of triggers) db.run(trigger.sql);
    return db.export();
  } finally {
    db.close();
  }
}

/** Opens `bytes` on a fresh connection, read-only, as the engine opens every database. */
export function openReadOnly(sql: SqlJsStatic, bytes: Uint8Array): Database {
  const db = new sql.Database(bytes);
  try {
    db.exec('SELECT count(*) FROM sqlite_master');
    db.exec('PRAGMA query_only = 1');
  } catch (e) {
    db.close();
    throw e;
  }
  return db;
}

/**
 * The copies of the database in `bytes`, one per COPY_PLANS entry, each open read-only on a fresh connection; a
 * copy SQLite could not build is null (the engine then judges with none: engine.ts). Throws only what is not an
 * SQLite error (a trap inside WASM), so the worker host can replace the worker.
 */
export interface PerturbedCopy {
  db: Database;
  plan: CopyPlan;
  seeds: CopySeeds;
}

export function buildPerturbedCopies(sql: SqlJsStatic, bytes: Uint8Array): Array<PerturbedCopy | null> {
  const hash = contentHash(bytes);
  return COPY_PLANS.map((plan, index) => {
    const seeds = copySeeds(hash, index);
    try {
      return { db: openReadOnly(sql, perturbedBytes(sql, bytes, plan, seeds)), plan, seeds };
    } catch (e) {
      if (isSqliteError(e)) return null;
      throw e;
    }
  });
}

/** sql.js reports SQLite's failures as plain Errors; a WASM trap is a RuntimeError (or another class). */
function isSqliteError(e: unknown): boolean {
  return e instanceof Error && e.constructor === Error;
}
