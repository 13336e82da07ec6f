/**
 * The DESCRIBE and SAMPLE actions that Play's buttons send for the picked table. The environment parses a table
 * argument as one identifier (`parseTableArgument` in src/env/actions.ts), so a name that is not a plain identifier
 * (a space, a quote, a bracket, a semicolon: anything a free-play file may hold) goes as a double-quoted SQL
 * identifier with inner double quotes doubled, which the parser unquotes back to the exact name.
 */
import { quoteTableName, type Action } from '../../env/actions.ts';

export { quoteTableName };

/** The action a Describe or Sample button sends for `table` (the name exactly as the database spells it). */
export function tableAction(type: 'DESCRIBE' | 'SAMPLE', table: string): Action {
  return { type, table: quoteTableName(table) };
}
