/**
 * The SQL editor's completion, from the database's tables (`EnvApi.schema`, which is free: not a step).
 *
 * - `table.` completes that table's columns (CodeMirror's schema completion over `completionSchema`).
 * - A bare word completes table names AND every column name (`bareWordNames`): a person typing `SELECT na` wants
 *   `name`, and CodeMirror's schema completion alone offers columns only after `table.`.
 * - Keywords (`keywordOption`): the words of a read-only query keep CodeMirror's usual small demotion; every other
 *   word of the SQLite dialect (SAVEPOINT, SCROLL, VACUUM, the shell's dot-commands…) sinks below the schema's names,
 *   since the environment only runs one SELECT/WITH statement and those words can never help.
 *
 * Pure, unit-tested (tests/ui/play-completion.test.ts).
 */
import { completeFromList, ifNotIn, type Completion, type CompletionSource } from '@codemirror/autocomplete';
import type { SQLNamespace } from '@codemirror/lang-sql';
import type { TableInfo } from '../../sql/types.ts';
import { plural } from '../components/plural.ts';

/**
 * Boosts (CodeMirror adds them to the match score, range −99…99): schema names first, then the words of a query,
 * then the rest of the dialect.
 */
export const COMPLETION_BOOST = { name: 1, queryWord: -1, otherWord: -50 } as const;

/** Keywords, types and functions a read-only SELECT/WITH statement uses, lower case. */
const QUERY_WORDS = new Set(
  (
    'select from where group by order having limit offset join left right full inner outer cross natural on using as ' +
    'and or not in is null like glob between exists distinct all union intersect except case when then else end ' +
    'with recursive asc desc collate cast escape true false values ' +
    'count sum avg min max total abs round length lower upper substr trim ltrim rtrim replace instr coalesce ifnull ' +
    'nullif typeof date time datetime julianday strftime group_concat printf iif integer real text numeric blob'
  ).split(' '),
);

export function completionSchema(tables: readonly TableInfo[] | null): SQLNamespace {
  const schema: Record<string, SQLNamespace> = {};
  for (const table of tables ?? []) {
    schema[table.name] = {
      self: { label: table.name, type: 'type', detail: `table · ${plural(table.rowCount, 'row')}`, boost: COMPLETION_BOOST.name },
      children: table.columns.map((c) => ({ label: c.name, type: 'property', detail: c.type || 'any' })),
    };
  }
  return schema;
}

/**
 * Every column name of the database once, for a bare word, saying which tables hold it (`column · cars, makers`).
 * Tables come from `completionSchema`'s top level, so they are not repeated here.
 */
export function bareWordNames(tables: readonly TableInfo[] | null): Completion[] {
  const holders = new Map<string, string[]>();
  for (const table of tables ?? [])
    for (const c of table.columns) {
      const list = holders.get(c.name);
      if (list) list.push(table.name);
      else holders.set(c.name, [table.name]);
    }
  return [...holders].map(([label, owners]) => ({ label, type: 'property', detail: `column · ${owners.join(', ')}`, boost: COMPLETION_BOOST.name }));
}

/** lang-sql's `keywordCompletion` builder: a query's own words keep a small demotion, the others sink. */
export function keywordOption(label: string, type: string): Completion {
  return { label, type, boost: QUERY_WORDS.has(label.toLowerCase()) ? COMPLETION_BOOST.queryWord : COMPLETION_BOOST.otherWord };
}

/** Nodes where a bare word is not a name: inside quotes or comments, or right after `table.` (the schema's turn). */
const NOT_A_BARE_WORD = ['QuotedIdentifier', 'String', 'LineComment', 'BlockComment', '.'];

/** The completion source for bare words: every column name (tables come from the schema source). */
export function bareWordSource(tables: readonly TableInfo[] | null): CompletionSource {
  return ifNotIn(NOT_A_BARE_WORD, completeFromList(bareWordNames(tables)));
}
