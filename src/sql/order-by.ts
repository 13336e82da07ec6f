/**
 * Whether row order is part of a query's meaning. Spider's test-suite metric treats order as significant exactly
 * when the gold SQL contains ORDER BY; we look for it as tokens, so 'order by' inside a string does not count.
 */
import { significantTokens } from './tokenize.ts';

export function hasOrderBy(sql: string): boolean {
  const tokens = significantTokens(sql);
  return tokens.some((t, i) => t.kind === 'word' && t.text.toLowerCase() === 'order' && tokens[i + 1]?.text.toLowerCase() === 'by');
}
