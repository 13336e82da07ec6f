/** Quoting names and text for SQL built by the engine itself (never for user SQL). */

/** `name` as a double-quoted SQLite identifier. */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
