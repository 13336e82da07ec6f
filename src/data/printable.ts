/**
 * Untrusted names (database ids, file and zip entry names, folder labels) as safe text for a terminal or a message:
 * every character that could steer a terminal or reorder what a reader sees is written as an escape instead.
 *
 * Escaped: C0 controls (ESC starts every terminal escape sequence; NUL, BEL, backspace, CR, LF, tab), DEL, C1
 * controls (U+009B is a one-character CSI), bidirectional overrides, embeddings, isolates and marks (the
 * "Trojan Source" characters), zero-width and other invisible format characters, line and paragraph separators,
 * and lone surrogates. Each becomes `\xNN` (below U+0100) or `\uNNNN`, so "a\x1b[2Jb" prints as `a\x1b[2Jb` and
 * the reader sees that the name holds an escape. Ordinary letters of every script are left alone.
 *
 * The one helper every import report and import error passes names through (spider-report.ts, spider*.ts).
 */

/** Longest name printed in full; longer ones are cut, saying how much was left out. */
export const PRINTABLE_MAX_CHARS = 200;

// eslint-disable-next-line no-control-regex -- control characters are exactly what is matched here
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u115f\u1160\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function escapeOf(ch: string): string {
  const code = ch.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** `text` with every unsafe character escaped, cut to `maxChars` characters (before escaping) with a note. */
export function printable(text: string, maxChars = PRINTABLE_MAX_CHARS): string {
  const cut = text.length > maxChars ? text.slice(0, maxChars) : text;
  const escaped = cut.replace(UNSAFE, escapeOf);
  return cut === text ? escaped : `${escaped}… (${text.length - maxChars} more characters)`;
}
