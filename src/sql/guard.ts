/**
 * The read-only guard: decides, before SQLite sees it, whether a user's SQL may run. Only one SELECT or WITH … SELECT
 * statement passes. The guard gives the clear message; it is not the only wall: every episode also runs on a fresh
 * in-memory copy of the database with `PRAGMA query_only` on, inside a worker that a time limit can terminate.
 */
import { UNAVAILABLE_LEGACY_FUNCTIONS } from './legacy-functions.ts';
import { significantTokens, unquoteIdentifier, type Token } from './tokenize.ts';

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

/** Index just past the parenthesised group opening at `tokens[open]` (which must be '('), or -1 if unclosed. */
function skipParens(tokens: Token[], open: number): number {
  let depth = 0;
  for (let i = open; i < tokens.length; i++) {
    if (tokens[i].kind !== 'punct') continue;
    if (tokens[i].text === '(') depth++;
    else if (tokens[i].text === ')' && --depth === 0) return i + 1;
  }
  return -1;
}

const isPunct = (t: Token | undefined, text: string): boolean => t?.kind === 'punct' && t.text === text;
const isWord = (t: Token | undefined, word: string): boolean => t?.kind === 'word' && t.text.toLowerCase() === word;

/**
 * The keyword of the statement a WITH clause leads into, read by walking the common-table-expression list as
 * SQLite's grammar has it, so a CTE *named* like a keyword (`WITH replace AS (…) SELECT …`) is a name, not the
 * statement:
 *   WITH [RECURSIVE] name [(columns)] AS [[NOT] MATERIALIZED] (body) [, name …] <statement keyword> …
 * Null when the list does not parse (SQLite would reject it too).
 */
function mainKeywordAfterWith(tokens: Token[]): string | null {
  let i = isWord(tokens[1], 'recursive') ? 2 : 1;
  for (;;) {
    const name = tokens[i];
    if (!name || (name.kind !== 'word' && name.kind !== 'identifier' && name.kind !== 'string')) return null;
    i++;
    if (isPunct(tokens[i], '(')) i = skipParens(tokens, i);
    if (i < 0 || !isWord(tokens[i], 'as')) return null;
    i++;
    if (isWord(tokens[i], 'not')) i++;
    if (isWord(tokens[i], 'materialized')) i++;
    if (!isPunct(tokens[i], '(')) return null;
    i = skipParens(tokens, i);
    if (i < 0) return null;
    if (!isPunct(tokens[i], ',')) break;
    i++;
  }
  const main = tokens[i];
  return main?.kind === 'word' ? main.text.toLowerCase() : null;
}

/**
 * The function name `t` calls when `next` is '(': a bare word, or a quoted identifier (`"load_extension"(…)`,
 * `[readfile](…)`, `` `edit`(…) ``), which SQLite resolves to the same function; a string literal too, for safety.
 * Null when `t` is not in call position.
 */
function calledName(t: Token, next: Token): string | null {
  if (!isPunct(next, '(')) return null;
  if (t.kind === 'word') return t.text;
  if (t.kind === 'identifier' || t.kind === 'string') return unquoteIdentifier(t.text);
  return null;
}

/**
 * Each function call among `tokens` (significant tokens): its name as SQLite resolves it (lower-cased), as written,
 * and where its `(` is.
 */
export function functionCalls(tokens: readonly Token[]): Array<{ name: string; spelled: string; open: number }> {
  const calls: Array<{ name: string; spelled: string; open: number }> = [];
  for (let i = 0; i + 1 < tokens.length; i++) {
    const spelled = calledName(tokens[i], tokens[i + 1]);
    if (spelled !== null) calls.push({ name: spelled.toLowerCase(), spelled, open: i + 1 });
  }
  return calls;
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
    const what = WRITE_KEYWORDS.has(first) ? `${first.toUpperCase()} is not allowed: the database is read-only` : `A query must start with SELECT or WITH, not '${statement[0].text.slice(0, 40)}'`;
    return { ok: false, reason: `${what}. Only a single SELECT (or WITH … SELECT) statement runs.` };
  }
  if (first === 'with') {
    const main = mainKeywordAfterWith(statement);
    if (main !== 'select' && main !== 'values') {
      return { ok: false, reason: `WITH must lead into a SELECT${main ? `, not ${main.slice(0, 40).toUpperCase()}` : ''}: the database is read-only.` };
    }
  }
  for (const { name, spelled } of functionCalls(statement)) {
    const shown = spelled.slice(0, 40);
    if (FORBIDDEN_FUNCTIONS.has(name)) {
      return { ok: false, reason: `The function ${shown}() is not allowed: queries may only read the database.` };
    }
    if (UNAVAILABLE_LEGACY_FUNCTIONS.has(name)) {
      return { ok: false, reason: `The function ${shown}() is not available: sql.js's legacy extension functions are disabled because they can crash SQLite. Use SQLite's built-in functions (printf, substr, instr, …).` };
    }
  }
  const start = statement[0].start;
  const last = statement[statement.length - 1];
  return { ok: true, sql: sql.slice(start, last.start + last.text.length) };
}
