/**
 * The SQL editor's completion schema, from the database's tables (`EnvApi.schema`, which is free: not a step).
 * Tables complete with their row count, columns with their type; `table.` completes that table's columns. Pure,
 * unit-tested (tests/ui/play-completion.test.ts).
 */
import type { SQLNamespace } from '@codemirror/lang-sql';
import type { TableInfo } from '../../sql/types.ts';

export function completionSchema(tables: readonly TableInfo[] | null): SQLNamespace {
  const schema: Record<string, SQLNamespace> = {};
  for (const table of tables ?? []) {
    schema[table.name] = {
      self: { label: table.name, type: 'type', detail: `table · ${table.rowCount} rows` },
      children: table.columns.map((c) => ({ label: c.name, type: 'property', detail: c.type || 'any' })),
    };
  }
  return schema;
}
