/**
 * The read-only guard: decides, before SQLite sees it, whether a user's SQL may run. Only one SELECT or WITH … SELECT
 * statement passes. The guard gives the clear message; it is not the only wall: every episode also runs on a fresh
 * in-memory copy of the database with `PRAGMA query_only` on, inside a worker that a time limit can terminate.
 */
import { significantTokens, type Token } from './tokenize.ts';

export type GuardVerdict = { ok: true; sql: string } | { ok: false; reason: string };

/** Functions that touch files or the engine rather than the data; sql.js lacks most, but we refuse them by name. */
const FORBIDDEN_FUNCTIONS = new Set(['load_extension', 'readfile', 'writefile', 'edit', 'fts3_tokenizer', 'sqlite_attach', 'sqlite_detach']);

const WRITE_KEYWORDS = new Set(['insert', 'update', 'delete', 'replace', 'create', 'drop', 'alter', 'attach', 'detach', 'pragma', 'vacuum', 'reindex', 'analyze', 'begin', 'commit', 'rollback', 'savepoint', 'release']);

function splitStatements(tokens: Token[]): Token[][] {
  const statements: Token[][] = [[]];
  for (const t of tokens) {
    if (t.kind === 'punct' && t.text === ';') statements.push([]);
    else statements[statements.length - 1].push(t);
  }
  return statements.filter((s) => s.length > 0);
}

/** The keyword of the statement a WITH clause leads into: the first statement keyword outside parentheses. */
function mainKeywordAfterWith(tokens: Token[]): string | null {
  let depth = 0;
  for (const t of tokens.slice(1)) {
    if (t.kind === 'punct' && t.text === '(') depth++;
    else if (t.kind === 'punct' && t.text === ')') depth--;
    else if (depth === 0 && t.kind === 'word') {
      const w = t.text.toLowerCase();
      if (w === 'select' || w === 'values' || WRITE_KEYWORDS.has(w)) return w;
    }
  }
  return null;
}

export function checkReadOnlySql(sql: string): GuardVerdict {
  const tokens = significantTokens(sql);
  const statements = splitStatements(tokens);
  if (statements.length === 0) return { ok: false, reason: 'Empty query: write one SELECT statement.' };
  if (statements.length > 1) {
    return { ok: false, reason: `Only one statement may run at a time; found ${statements.length}. Remove the extra ';'-separated statements.` };
  }
  const statement = statements[0];
  const first = statement[0].text.toLowerCase();
  if (first !== 'select' && first !== 'with') {
    const what = WRITE_KEYWORDS.has(first) ? `${first.toUpperCase()} is not allowed: the database is read-only` : `A query must start with SELECT or WITH, not '${statement[0].text}'`;
    return { ok: false, reason: `${what}. Only a single SELECT (or WITH … SELECT) statement runs.` };
  }
  if (first === 'with') {
    const main = mainKeywordAfterWith(statement);
    if (main !== 'select' && main !== 'values') {
      return { ok: false, reason: `WITH must lead into a SELECT${main ? `, not ${main.toUpperCase()}` : ''}: the database is read-only.` };
    }
  }
  for (let i = 0; i + 1 < statement.length; i++) {
    const t = statement[i];
    if (t.kind === 'word' && statement[i + 1].text === '(' && FORBIDDEN_FUNCTIONS.has(t.text.toLowerCase())) {
      return { ok: false, reason: `The function ${t.text}() is not allowed: queries may only read the database.` };
    }
  }
  const start = statement[0].start;
  const last = statement[statement.length - 1];
  return { ok: true, sql: sql.slice(start, last.start + last.text.length) };
}
