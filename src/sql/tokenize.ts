/**
 * A small SQLite lexer: enough to find statement boundaries, keywords and function calls without being fooled by
 * strings, quoted identifiers, bound variables (whose `$x(…)` form may hold quotes) or comments. It never throws: an unterminated string or comment becomes one token
 * running to the end of the input, and SQLite itself reports the syntax error later.
 */

export type TokenKind = 'word' | 'string' | 'identifier' | 'number' | 'variable' | 'punct' | 'comment' | 'space';

export interface Token {
  kind: TokenKind;
  text: string;
  start: number;
}

const WORD_START = /[A-Za-z_\u0080-\uffff]/;
const WORD_PART = /[A-Za-z0-9_$\u0080-\uffff]/;

/** SQLite's IdChar: the characters that continue an identifier or a variable name. */
const ID_CHAR = /[A-Za-z0-9_$\u0080-\uffff]/;

/**
 * End of a bound variable starting at `start`, read exactly as SQLite's tokenizer reads one, or -1 when SQLite
 * would call it illegal. `?NNN`; `:name`, `@name`, `#name` and `$name`, where the name may hold `::` and end in a
 * TCL-style `(…)` suffix that runs to the first `)` or whitespace and may hold ANY other character — quotes, `;`,
 * `--` — so `$a(')` is one variable, not the start of a string (a lexer that missed this could be shown one
 * statement while SQLite runs another).
 */
function scanVariable(sql: string, start: number): number {
  let i = start + 1;
  if (sql[start] === '?') {
    while (i < sql.length && /[0-9]/.test(sql[i])) i++;
    return i;
  }
  let n = 0;
  while (i < sql.length) {
    const c = sql[i];
    if (ID_CHAR.test(c)) {
      n++;
      i++;
    } else if (c === '(' && n > 0) {
      i++;
      while (i < sql.length && !/\s/.test(sql[i]) && sql[i] !== ')') i++;
      if (sql[i] !== ')') return -1;
      return i + 1;
    } else if (c === ':' && sql[i + 1] === ':') {
      i += 2;
    } else {
      break;
    }
  }
  return n === 0 ? -1 : i;
}

function scanQuoted(sql: string, start: number, close: string): number {
  let i = start + 1;
  while (i < sql.length) {
    if (sql[i] === close) {
      // A doubled closing quote is an escaped quote, except for [...] identifiers.
      if (close !== ']' && sql[i + 1] === close) {
        i += 2;
        continue;
      }
      return i + 1;
    }
    i++;
  }
  return sql.length;
}

export function tokenize(sql: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < sql.length) {
    const c = sql[i];
    const start = i;
    let kind: TokenKind;
    if (/\s/.test(c)) {
      while (i < sql.length && /\s/.test(sql[i])) i++;
      kind = 'space';
    } else if (c === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      i = end === -1 ? sql.length : end;
      kind = 'comment';
    } else if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      i = end === -1 ? sql.length : end + 2;
      kind = 'comment';
    } else if (c === "'") {
      i = scanQuoted(sql, i, "'");
      kind = 'string';
    } else if (c === '"' || c === '`') {
      i = scanQuoted(sql, i, c);
      kind = 'identifier';
    } else if (c === '[') {
      i = scanQuoted(sql, i, ']');
      kind = 'identifier';
    } else if ('?:@#$'.includes(c) && scanVariable(sql, i) > 0) {
      i = scanVariable(sql, i);
      kind = 'variable';
    } else if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(sql[i + 1] ?? ''))) {
      while (i < sql.length && /[0-9A-Za-z_.]/.test(sql[i])) i++;
      kind = 'number';
    } else if (WORD_START.test(c)) {
      while (i < sql.length && WORD_PART.test(sql[i])) i++;
      kind = 'word';
    } else {
      i++;
      kind = 'punct';
    }
    tokens.push({ kind, text: sql.slice(start, i), start });
  }
  return tokens;
}

/** Tokens that carry meaning: no whitespace, no comments. */
export function significantTokens(sql: string): Token[] {
  return tokenize(sql).filter((t) => t.kind !== 'space' && t.kind !== 'comment');
}

/** Removes the quotes around an identifier token's text (`"a""b"` → `a"b`, `[x]` → `x`). */
export function unquoteIdentifier(text: string): string {
  const first = text[0];
  if (first === '[' && text.endsWith(']')) return text.slice(1, -1);
  if ((first === '"' || first === '`' || first === "'") && text.length >= 2 && text.endsWith(first)) {
    return text.slice(1, -1).split(first + first).join(first);
  }
  return text;
}
