/**
 * Row order in a query's meaning. Spider's test-suite metric treats order as significant when the gold SQL contains
 * ORDER BY; here only an ORDER BY of the outer query counts (one inside a subquery, a CTE or a window's OVER (…)
 * orders nothing the caller sees). Found as tokens, so 'order by' inside a string does not count.
 *
 * `tieRewrite` prepares what finding the gold's tied rows needs (src/data/gold.ts): the same query without its
 * LIMIT, with the ORDER BY keys appended as extra result columns, so rows tied at the cut-off can be seen. It gives
 * up (undefined) on what it cannot rewrite faithfully: compound selects, DISTINCT, ordinal or COLLATE keys, a LIMIT
 * that is not integer literals, no FROM.
 */
import { significantTokens, type Token } from './tokenize.ts';

/** Tokens of the outer query (paren depth 0), with their index among all significant tokens. */
function outerTokens(sql: string): { tokens: Token[]; outer: number[] } {
  const tokens = significantTokens(sql);
  const outer: number[] = [];
  let depth = 0;
  tokens.forEach((t, i) => {
    if (t.text === '(') depth++;
    else if (t.text === ')') depth = Math.max(0, depth - 1);
    else if (depth === 0) outer.push(i);
  });
  return { tokens, outer };
}

const lower = (t: Token | undefined): string => (t?.kind === 'word' ? t.text.toLowerCase() : '');

/** Index (among significant tokens) of the outer query's last ORDER, followed by BY; -1 when none. */
function outerOrderBy(tokens: Token[], outer: number[]): number {
  for (let k = outer.length - 1; k >= 0; k--) {
    const i = outer[k];
    if (lower(tokens[i]) === 'order' && lower(tokens[i + 1]) === 'by') return i;
  }
  return -1;
}

/** Whether the outer query orders its rows (ORDER BY outside every parenthesis). */
export function hasOrderBy(sql: string): boolean {
  const { tokens, outer } = outerTokens(sql);
  return outerOrderBy(tokens, outer) !== -1;
}

export interface TieRewrite {
  /** The query without LIMIT/OFFSET, its result columns followed by one column per ORDER BY key. */
  sql: string;
  keys: number;
  /** Rows the original skips (OFFSET) and keeps (LIMIT; null when it has none). */
  offset: number;
  limit: number | null;
}

/** See the header; undefined when the query has no outer ORDER BY or cannot be rewritten faithfully. */
export function tieRewrite(sql: string): TieRewrite | undefined {
  const { tokens, outer } = outerTokens(sql);
  const orderAt = outerOrderBy(tokens, outer);
  if (orderAt === -1) return undefined;
  const outerWords = outer.map((i) => lower(tokens[i]));
  if (outerWords.some((w) => w === 'union' || w === 'intersect' || w === 'except')) return undefined;
  const selectK = outerWords.indexOf('select');
  if (selectK === -1 || lower(tokens[outer[selectK] + 1]) === 'distinct') return undefined;
  const fromK = outerWords.indexOf('from', selectK);
  if (fromK === -1) return undefined;
  const limitK = outer.findIndex((i, k) => k > 0 && i > orderAt && outerWords[k] === 'limit');
  const keysEnd = limitK === -1 ? endOfStatement(tokens) : outer[limitK];
  const keys = splitOuterCommas(tokens, orderAt + 2, keysEnd).map((key) => stripDirection(key));
  if (keys.length === 0 || keys.some((k) => k.length === 0 || k.some((t) => lower(t) === 'collate') || (k.length === 1 && k[0].kind === 'number'))) return undefined;
  const limit = limitK === -1 ? { offset: 0, limit: null } : readLimit(tokens, outer[limitK] + 1, endOfStatement(tokens));
  if (!limit) return undefined;
  const text = (k: Token[]): string => sql.slice(k[0].start, k[k.length - 1].start + k[k.length - 1].text.length);
  const fromAt = tokens[outer[fromK]].start;
  const cut = limitK === -1 ? statementEnd(tokens) : tokens[outer[limitK]].start;
  const extra = keys.map((k, i) => `, (${text(k)}) AS "__tie_key_${i}"`).join('');
  return { sql: `${sql.slice(0, fromAt).trimEnd()}${extra} ${sql.slice(fromAt, cut).trimEnd()}`, keys: keys.length, ...limit };
}

/** Index after the last significant token that is not a closing `;`. */
function endOfStatement(tokens: Token[]): number {
  let end = tokens.length;
  while (end > 0 && tokens[end - 1].text === ';') end--;
  return end;
}

function statementEnd(tokens: Token[]): number {
  const end = endOfStatement(tokens);
  return end === 0 ? 0 : tokens[end - 1].start + tokens[end - 1].text.length;
}

/** Tokens [from, to) split at commas outside parentheses. */
function splitOuterCommas(tokens: Token[], from: number, to: number): Token[][] {
  const parts: Token[][] = [[]];
  let depth = 0;
  for (let i = from; i < to; i++) {
    const t = tokens[i];
    if (t.text === '(') depth++;
    if (t.text === ')') depth--;
    if (t.text === ',' && depth === 0) parts.push([]);
    else parts[parts.length - 1].push(t);
  }
  return parts;
}

/** A key without its trailing ASC/DESC and NULLS FIRST/LAST. */
function stripDirection(key: Token[]): Token[] {
  let end = key.length;
  if (end >= 2 && lower(key[end - 2]) === 'nulls' && ['first', 'last'].includes(lower(key[end - 1]))) end -= 2;
  if (end >= 1 && ['asc', 'desc'].includes(lower(key[end - 1]))) end--;
  return key.slice(0, end);
}

/** `LIMIT a`, `LIMIT a OFFSET b` or `LIMIT b, a` with integer literals; undefined otherwise. */
function readLimit(tokens: Token[], from: number, to: number): { offset: number; limit: number } | undefined {
  const parts = tokens.slice(from, to);
  const int = (t: Token | undefined): number | undefined => (t?.kind === 'number' && /^\d+$/.test(t.text) ? Number(t.text) : undefined);
  if (parts.length === 1) {
    const limit = int(parts[0]);
    return limit === undefined ? undefined : { offset: 0, limit };
  }
  if (parts.length === 3) {
    const [a, sep, b] = [int(parts[0]), parts[1], int(parts[2])];
    if (a === undefined || b === undefined) return undefined;
    if (lower(sep) === 'offset') return { offset: b, limit: a };
    if (sep.text === ',') return { offset: a, limit: b };
  }
  return undefined;
}
