/**
 * The tables a question's gold SQL names (as the database spells them), for the Oracle and the policy table's
 * "reads the right tables" policy. Since v3 nothing here decides pay: a result's closeness is judged on the
 * database's content (closeness.ts), so v2's literal blanking is gone.
 */
import { significantTokens, unquoteIdentifier } from '../sql/tokenize.ts';

/** Tables of `tables` that `sql` mentions (as the database spells them), in order of first mention. */
export function tablesNamedBy(sql: string, tables: readonly string[]): string[] {
  const byLower = new Map(tables.map((t) => [t.toLowerCase(), t]));
  const used: string[] = [];
  for (const token of significantTokens(sql)) {
    if (token.kind !== 'word' && token.kind !== 'identifier') continue;
    const table = byLower.get(unquoteIdentifier(token.text).toLowerCase());
    if (table !== undefined && !used.includes(table)) used.push(table);
  }
  return used;
}
