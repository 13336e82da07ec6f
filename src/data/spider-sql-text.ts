/**
 * Reads the shape of a SQL query from its text into Spider's parsed-SQL structure (`spider-sql.ts`), so Spider's
 * hardness port can rate questions that come without a parsed `sql` field. It is a shape, not a full parse: columns
 * and values are kept as text placeholders (hardness never looks at them); what is kept faithfully is what hardness
 * counts — clauses at the top level, table units and ON conditions, condition units with their NOT flag, operator
 * and nested queries, AND/OR connectors, aggregates in SELECT / GROUP BY / ORDER BY, and INTERSECT / UNION / EXCEPT.
 *
 * How to think about it: tokens (`src/sql/tokenize.ts`) become a tree of parenthesised groups, then every split
 * (clauses, commas, JOINs, AND/OR) happens among the siblings of one level, so nothing inside a subquery or function
 * call is ever mistaken for a clause of the outer query. Like Spider's own parser it never recurses into a subquery
 * for counting; unlike it, it never fails: odd input just gives a smaller shape.
 */
import { significantTokens, type TokenKind } from '../sql/tokenize.ts';
import {
  AGG_OPS,
  UNIT_OPS,
  WHERE_OPS,
  emptySpiderSql,
  type SpiderColUnit,
  type SpiderCondUnit,
  type SpiderCondition,
  type SpiderSql,
  type SpiderTableUnit,
  type SpiderValUnit,
  type SpiderValue,
  type WhereOp,
} from './spider-sql.ts';

type SqlNode = { kind: 'token'; lower: string; text: string; tokenKind: TokenKind } | { kind: 'group'; nodes: SqlNode[] };
type GroupNode = Extract<SqlNode, { kind: 'group' }>;

const CLAUSES = ['select', 'from', 'where', 'group', 'having', 'order', 'limit'] as const;
type Clause = (typeof CLAUSES)[number];
const SET_OPS = ['intersect', 'union', 'except'] as const;
const JOIN_MODIFIERS = ['inner', 'left', 'right', 'full', 'outer', 'cross', 'natural'];

/** Parentheses become groups; an unmatched ')' is dropped and an unclosed '(' closes at the end. */
function buildTree(sql: string): SqlNode[] {
  const root: SqlNode[] = [];
  const stack: SqlNode[][] = [root];
  for (const token of significantTokens(sql)) {
    const top = stack[stack.length - 1];
    if (token.kind === 'punct' && token.text === '(') {
      const group: GroupNode = { kind: 'group', nodes: [] };
      top.push(group);
      stack.push(group.nodes);
    } else if (token.kind === 'punct' && token.text === ')') {
      if (stack.length > 1) stack.pop();
    } else {
      top.push({ kind: 'token', lower: token.text.toLowerCase(), text: token.text, tokenKind: token.kind });
    }
  }
  return root;
}

function isWord(node: SqlNode | undefined, ...words: readonly string[]): boolean {
  return node?.kind === 'token' && node.tokenKind === 'word' && words.includes(node.lower);
}

function isPunct(node: SqlNode | undefined, ...chars: readonly string[]): boolean {
  return node?.kind === 'token' && node.tokenKind === 'punct' && chars.includes(node.text);
}

/** `(SELECT …)`, `(WITH …)`, or such a group wrapped in more parentheses. */
function isSubquery(node: SqlNode | undefined): boolean {
  if (node?.kind !== 'group') return false;
  return isWord(node.nodes[0], 'select', 'with') || (node.nodes.length === 1 && isSubquery(node.nodes[0]));
}

function textOf(nodes: readonly SqlNode[]): string {
  return nodes.map((n) => (n.kind === 'token' ? n.text : `(${textOf(n.nodes)})`)).join(' ');
}

/** Splits siblings at every node that `at` accepts (the separators themselves are dropped). */
function splitTop(nodes: readonly SqlNode[], at: (node: SqlNode) => boolean): SqlNode[][] {
  const parts: SqlNode[][] = [[]];
  for (const node of nodes) {
    if (at(node)) parts.push([]);
    else parts[parts.length - 1].push(node);
  }
  return parts;
}

/** Index in AGG_OPS when `nodes` starts with an aggregate call such as `count(…)`, else 0 ('none'). */
function leadingAgg(nodes: readonly SqlNode[]): number {
  const first = nodes[0];
  if (first?.kind !== 'token' || first.tokenKind !== 'word' || nodes[1]?.kind !== 'group') return 0;
  return Math.max(0, AGG_OPS.indexOf(first.lower as (typeof AGG_OPS)[number]));
}

function colUnit(nodes: readonly SqlNode[]): SpiderColUnit {
  const inner = nodes[1];
  const distinct = isWord(nodes[0], 'distinct') || (inner?.kind === 'group' && isWord(inner.nodes[0], 'distinct'));
  return [leadingAgg(nodes), textOf(nodes), distinct];
}

/** `a`, `count(x)`, `a - b`: split at the first top-level arithmetic operator (not `*` of `SELECT *` / `t.*`). */
function valUnit(nodes: readonly SqlNode[]): SpiderValUnit {
  const opAt = nodes.findIndex((n, i) => i > 0 && isPunct(n, '-', '+', '*', '/') && !isPunct(nodes[i - 1], '.'));
  if (opAt < 0) return [0, colUnit(nodes), null];
  const op = (nodes[opAt] as { text: string }).text as (typeof UNIT_OPS)[number];
  return [UNIT_OPS.indexOf(op), colUnit(nodes.slice(0, opAt)), colUnit(nodes.slice(opAt + 1))];
}

/** Finds the comparison operator of one condition: its position, length in nodes and Spider index. */
function findOperator(nodes: readonly SqlNode[]): { at: number; length: number; op: WhereOp } | null {
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i];
    if (node.kind !== 'token') continue;
    if (node.tokenKind === 'word') {
      if (['between', 'in', 'like', 'is', 'exists'].includes(node.lower)) return { at: i, length: 1, op: node.lower as WhereOp };
      if (node.lower === 'glob') return { at: i, length: 1, op: 'like' };
      continue;
    }
    if (node.tokenKind !== 'punct') continue;
    const next = nodes[i + 1];
    const pair = next?.kind === 'token' && next.tokenKind === 'punct' ? node.text + next.text : '';
    if (pair === '<>' || pair === '!=') return { at: i, length: 2, op: '!=' };
    if (pair === '>=' || pair === '<=') return { at: i, length: 2, op: pair };
    if (pair === '==') return { at: i, length: 2, op: '=' };
    if (node.text === '=' || node.text === '<' || node.text === '>') return { at: i, length: 1, op: node.text };
  }
  return null;
}

/** One condition unit, as `parse_condition` builds it: `val_unit [NOT] op val1 [AND val2]`. */
function condUnit(nodes: readonly SqlNode[]): SpiderCondUnit {
  const found = findOperator(nodes);
  const at = found?.at ?? nodes.length;
  let left = nodes.slice(0, at);
  let notOp = false;
  if (isWord(left[left.length - 1], 'not') && !isWord(left[left.length - 2], 'is')) {
    notOp = true;
    left = left.slice(0, -1);
  }
  if (isWord(left[0], 'not')) {
    notOp = true;
    left = left.slice(1);
  }
  const right = nodes.slice(at + (found?.length ?? 0));
  // Every top-level subquery of the unit is a nested query (Spider only allows them as values).
  const nested: SpiderValue[] = [...left, ...right].filter(isSubquery).map((g) => parseQuery([g]));
  const literal = textOf(right);
  const op = found?.op ?? '=';
  const val1 = nested[0] ?? literal;
  const val2 = nested[1] ?? (op === 'between' ? literal : null);
  return [notOp, WHERE_OPS.indexOf(op), valUnit(left), val1, val2];
}

/**
 * Spider's `parse_value` reads a value that is not a string, a number or a subquery (a column, as in `ON a.x = b.y`)
 * up to the next AND, ',', ')' or clause keyword, so an OR right after it and the condition behind it become part
 * of that value: they add neither an OR nor a condition. We follow it, as the published levels do.
 */
function valueIsColumn(part: readonly SqlNode[]): boolean {
  const found = findOperator(part);
  if (!found || found.op === 'between') return false;
  const value = part[found.at + found.length];
  if (value?.kind !== 'token') return false;
  return value.tokenKind === 'word' || (value.tokenKind === 'identifier' && !value.text.startsWith('"'));
}

/**
 * A flat list of condition units and connectors, as `parse_condition` builds it. The AND of `BETWEEN x AND y` is
 * part of its unit, and so is an OR after a column value (see `valueIsColumn`).
 */
function parseCondition(nodes: readonly SqlNode[]): SpiderCondition {
  const out: SpiderCondition = [];
  const flush = (part: SqlNode[]): void => {
    if (part.length === 0) return;
    // A parenthesised group of conditions is read as its conditions, in place.
    if (part.length === 1 && part[0].kind === 'group' && !isSubquery(part[0])) out.push(...parseCondition(part[0].nodes));
    else out.push(condUnit(part));
  };
  let part: SqlNode[] = [];
  let inBetween = false;
  for (const node of nodes) {
    if (isWord(node, 'between')) inBetween = true;
    const swallowed = isWord(node, 'or') && valueIsColumn(part);
    if (isWord(node, 'and', 'or') && !(inBetween && isWord(node, 'and')) && !swallowed) {
      flush(part);
      if (out.length > 0) out.push(isWord(node, 'or') ? 'or' : 'and');
      part = [];
      continue;
    }
    if (isWord(node, 'and')) inBetween = false;
    part.push(node);
  }
  flush(part);
  if (typeof out[out.length - 1] === 'string') out.pop();
  return out;
}

/** FROM: table units separated by JOIN or ',', each optionally followed by ON conditions (joined by 'and'). */
function parseFrom(nodes: readonly SqlNode[]): SpiderSql['from'] {
  const tableUnits: SpiderTableUnit[] = [];
  const conds: SpiderCondition = [];
  let table: SqlNode[] = [];
  let on: SqlNode[] | null = null;
  const finish = (): void => {
    const trim = (part: SqlNode[]): SqlNode[] => {
      const out = [...part];
      while (isWord(out[out.length - 1], ...JOIN_MODIFIERS)) out.pop();
      return out;
    };
    table = trim(table);
    if (table.length > 0) {
      const first = table[0];
      tableUnits.push(isSubquery(first) ? ['sql', parseQuery([first])] : ['table_unit', textOf(table)]);
    }
    if (on) {
      const unitConds = parseCondition(trim(on));
      if (unitConds.length > 0 && conds.length > 0) conds.push('and');
      conds.push(...unitConds);
    }
    table = [];
    on = null;
  };
  for (const node of nodes) {
    if (isWord(node, 'join') || isPunct(node, ',')) finish();
    else if (isWord(node, 'on')) on = [];
    else if (isWord(node, 'using')) on = null;
    else (on ?? table).push(node);
  }
  finish();
  return { table_units: tableUnits, conds };
}

function parseOrderBy(nodes: readonly SqlNode[]): SpiderSql['orderBy'] {
  let direction: 'asc' | 'desc' = 'asc';
  const units: SpiderValUnit[] = [];
  for (const item of splitTop(nodes, (n) => isPunct(n, ','))) {
    if (item.length === 0) continue;
    const last = item[item.length - 1];
    if (isWord(last, 'asc', 'desc')) direction = (last as { lower: 'asc' | 'desc' }).lower;
    units.push(valUnit(isWord(last, 'asc', 'desc') ? item.slice(0, -1) : item));
  }
  return units.length > 0 ? [direction, units] : [];
}

/** SELECT … FROM … WHERE … GROUP BY … HAVING … ORDER BY … LIMIT …, without set operators. */
function parseClauses(nodes: readonly SqlNode[]): SpiderSql {
  const sql = emptySpiderSql();
  sql.from.table_units = [];
  // A WITH prefix is skipped: the main query starts at the first top-level SELECT.
  const start = Math.max(0, nodes.findIndex((n) => isWord(n, 'select')));
  const clauses = new Map<Clause, SqlNode[]>();
  let current: SqlNode[] | null = null;
  for (let i = start; i < nodes.length; i++) {
    const node = nodes[i];
    const word = CLAUSES.find((c) => isWord(node, c) && !clauses.has(c) && ((c !== 'group' && c !== 'order') || isWord(nodes[i + 1], 'by')));
    if (word) {
      current = [];
      clauses.set(word, current);
      if (word === 'group' || word === 'order') i++; // skip BY
    } else current?.push(node);
  }
  let select = clauses.get('select') ?? [];
  const distinct = isWord(select[0], 'distinct');
  if (isWord(select[0], 'distinct', 'all')) select = select.slice(1);
  const items = splitTop(select, (n) => isPunct(n, ',')).filter((item) => item.length > 0);
  sql.select = [distinct, items.map((item): [number, SpiderValUnit] => [leadingAgg(item), valUnit(leadingAgg(item) ? item.slice(1) : item)])];
  const from = clauses.get('from');
  if (from) sql.from = parseFrom(from);
  sql.where = parseCondition(clauses.get('where') ?? []);
  sql.groupBy = splitTop(clauses.get('group') ?? [], (n) => isPunct(n, ',')).filter((c) => c.length > 0).map(colUnit);
  sql.having = parseCondition(clauses.get('having') ?? []);
  sql.orderBy = parseOrderBy(clauses.get('order') ?? []);
  const limit = clauses.get('limit');
  if (limit) sql.limit = Number.parseInt(limit[0]?.kind === 'token' ? limit[0].text : '', 10) || 1;
  return sql;
}

/** A whole query: its clauses, and the first top-level INTERSECT / UNION / EXCEPT with everything after it. */
function parseQuery(input: readonly SqlNode[]): SpiderSql {
  let nodes = [...input];
  while (isPunct(nodes[nodes.length - 1], ';')) nodes.pop();
  while (nodes.length === 1 && nodes[0].kind === 'group') nodes = nodes[0].nodes;
  const setAt = nodes.findIndex((n) => isWord(n, ...SET_OPS));
  const body = setAt < 0 ? nodes : nodes.slice(0, setAt);
  const sql = body.length === 1 && body[0].kind === 'group' ? parseQuery(body[0].nodes) : parseClauses(body);
  if (setAt >= 0) {
    const op = (nodes[setAt] as { lower: (typeof SET_OPS)[number] }).lower;
    const rest = nodes.slice(setAt + 1);
    if (isWord(rest[0], 'all', 'distinct')) rest.shift();
    if (sql[op] === null) sql[op] = parseQuery(rest);
  }
  return sql;
}

/** The Spider-style shape of `sql` (first statement only); column and value slots hold text placeholders. */
export function parseSpiderSqlShape(sql: string): SpiderSql {
  const statements = splitTop(buildTree(sql), (n) => isPunct(n, ';')).filter((s) => s.length > 0);
  return parseQuery(statements[0] ?? []);
}
