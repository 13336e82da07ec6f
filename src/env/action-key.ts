/**
 * Identity of an action for repeat detection. Two actions are the same when they differ only in the case of
 * keywords and identifiers, spacing, comments, quoting of identifiers, a trailing ';' or the keyword AS, so re-cased
 * or re-spaced repeats (`query select 1` after `QUERY SELECT 1`) are caught. String literals and numbers keep their
 * exact text: 'France' and 'france' are different filters, 1.0/2 and 1/2 different values. Two valid statements
 * with one key give one result; the environment still never lets a repeat raise the progress potential, so a key
 * shared with an invalid statement cannot pay either. Linear in the action's length.
 */
import { significantTokens, unquoteIdentifier } from '../sql/tokenize.ts';
import type { Action } from './actions.ts';

/** A SQL statement reduced to what decides its result, as one string of tokens. */
export function normalizeSqlForRepeat(sql: string): string {
  const out: string[] = [];
  for (const t of significantTokens(sql)) {
    switch (t.kind) {
      case 'word': {
        const w = t.text.toLowerCase();
        if (w !== 'as') out.push(w);
        break;
      }
      case 'identifier':
        // A double-quoted word that names no column is a string in SQLite ("France"), so its case is kept.
        out.push(t.text.startsWith('"') ? unquoteIdentifier(t.text) : unquoteIdentifier(t.text).toLowerCase());
        break;
      case 'number':
        // Spelling kept: 1.0/2 is 0.5 but 1/2 is 0 in SQLite.
        out.push(t.text.toLowerCase());
        break;
      case 'string':
        out.push(t.text);
        break;
      case 'punct':
        out.push(t.text);
        break;
      default:
        break;
    }
  }
  while (out.length > 0 && out[out.length - 1] === ';') out.pop();
  // A single space joins tokens; a string's own spaces stay inside its token, so no two token lists collide on
  // anything that changes the result.
  return out.join(' ');
}

/** Identity of an action: equal keys mean "the same action again". */
export function actionKey(action: Action): string {
  switch (action.type) {
    case 'DESCRIBE':
    case 'SAMPLE':
      return `${action.type} ${action.table.toLowerCase()}`;
    case 'QUERY':
      return `QUERY ${normalizeSqlForRepeat(action.sql)}`;
    case 'ANSWER':
      return `ANSWER ${action.value.trim().split(/\s+/).join(' ').toLowerCase()}`;
    default:
      return action satisfies never;
  }
}
