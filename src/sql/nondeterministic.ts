/**
 * What makes a statement's result change between two runs on the same data: a random draw, or the clock. SQLite's
 * non-deterministic built-ins are random() and randomblob(), and its date and time functions when they read the
 * current time — the time value 'now', or no time value at all (`date()`, `strftime('%f')`, `unixepoch()`) — and the
 * CURRENT_TIME / CURRENT_DATE / CURRENT_TIMESTAMP keywords (sqlite.org/deterministic.html). The environment's
 * closeness must not pay such a statement: the perturbed copies make a chance match with the gold unlikely, not
 * impossible (src/env/closeness.ts). Connection-state functions (changes(), last_insert_rowid()) are deterministic
 * on a fresh connection and are left to the copies.
 *
 * The test is on the tokens, so any spelling SQLite resolves counts (`RANDOM()`, `"random"()`, comments anywhere),
 * and a name that is not called (a column named random, the text 'random()') does not.
 */
import { functionCalls } from './guard.ts';
import { significantTokens, unquoteIdentifier, type Token } from './tokenize.ts';

/** Functions whose result is drawn at random on every call. */
export const RANDOM_FUNCTIONS: readonly string[] = ['random', 'randomblob'];
/** Date and time functions, with the argument that holds their time value (0-based): none given means now. */
const TIME_VALUE_ARGUMENT: Readonly<Record<string, number>> = { date: 0, time: 0, datetime: 0, julianday: 0, unixepoch: 0, strftime: 1, timediff: 0 };
const CLOCK_KEYWORDS: readonly string[] = ['current_time', 'current_date', 'current_timestamp'];

/** Why `sql`'s result may change between runs on the same data ("random()", "the clock (date())"), or null. */
export function nondeterminismIn(sql: string): string | null {
  const tokens = significantTokens(sql);
  for (const t of tokens) {
    if (t.kind === 'word' && CLOCK_KEYWORDS.includes(t.text.toLowerCase())) return `the clock (${t.text.toUpperCase()})`;
    if (t.kind === 'string' && unquoteIdentifier(t.text).trim().toLowerCase() === 'now') return "the clock ('now')";
  }
  for (const call of functionCalls(tokens)) {
    if (RANDOM_FUNCTIONS.includes(call.name)) return `${call.name}()`;
    const timeArg = TIME_VALUE_ARGUMENT[call.name];
    if (timeArg !== undefined && argumentCount(tokens, call.open) <= timeArg) return `the clock (${call.name}() without a time value)`;
  }
  return null;
}

/** The number of arguments of the call whose `(` is at `open` (commas at its own depth; `f()` has 0). */
function argumentCount(tokens: readonly Token[], open: number): number {
  let depth = 0;
  let commas = 0;
  for (let i = open; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.kind !== 'punct') continue;
    if (t.text === '(') depth++;
    else if (t.text === ')') {
      depth--;
      if (depth === 0) return i === open + 1 ? 0 : commas + 1;
    } else if (t.text === ',' && depth === 1) commas++;
  }
  return commas + 1; // unclosed: SQLite refuses the statement anyway
}
