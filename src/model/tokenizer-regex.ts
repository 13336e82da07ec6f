/**
 * The regexes of an untrusted tokenizer.json, checked before `@huggingface/tokenizers` compiles them.
 *
 * The library turns every `{"Regex": "..."}` pattern (Split pre-tokenizers, Replace normalizers and decoders) into a
 * JavaScript RegExp and runs it over each text encoded: a backtracking engine, searching at every position, so
 * `(\w|\w)*;` takes exponential time and even `a+b` quadratic on a long run of a's — the probe hung encoding for over
 * 90 s. A pattern is accepted only when it is
 *  1. one of KNOWN_PATTERNS — the exact pre-tokenizer patterns of the Qwen2/2.5/3 and GPT-2 families, reviewed as
 *     linear (every quantified part either ends its alternative or is followed by a test that cannot fail after it,
 *     and the Hugging Face tokenizers have run them over arbitrary text for years); or
 *  2. in a subset that is linear by construction: top-level alternatives, each a sequence of single-character atoms
 *     (literals, escapes, classes, `.`) of which only the LAST may carry a quantifier (with a minimum of at most
 *     MAX_MIN_REPEAT), and no groups. At a start position each alternative then either fails after at most
 *     (its length + MAX_MIN_REPEAT) steps or matches — a greedy last atom never has to give characters back — and a
 *     match is consumed by the search, so the work is linear in the text.
 * Everything else is refused with the pattern's place in tokenizer.json; `{"String": ...}` patterns are literal text
 * (the library escapes them) and always pass.
 */

/** Split patterns reviewed as linear: Qwen2, Qwen2.5 and Qwen3 share the first; the second is GPT-2's. */
export const KNOWN_PATTERNS: ReadonlySet<string> = new Set([
  "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
  "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+",
]);

/** Largest minimum count on the last atom (`x{n,}`): a failed start costs up to n steps. */
export const MAX_MIN_REPEAT = 64;
/** Longest pattern checked against the subset. */
export const MAX_TOKENIZER_PATTERN_LENGTH = 1000;

/** Escapes of one character (or one class of them) that the library passes through unchanged. */
const SINGLE_CHAR_ESCAPE = /^\\(?:[dDwWsSnrtfv]|[pP]\{[A-Za-z_=]{1,40}\}|x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4}|[^A-Za-z0-9])/;

/** Why `pattern` is refused, or null when it is accepted (see the file header). */
export function unsafeTokenizerPattern(pattern: string): string | null {
  if (KNOWN_PATTERNS.has(pattern)) return null;
  if (pattern.length > MAX_TOKENIZER_PATTERN_LENGTH) return `has ${pattern.length} characters (at most ${MAX_TOKENIZER_PATTERN_LENGTH})`;
  let i = 0;
  let lastWasQuantified = false;
  const atomAt = (): number => {
    // Length of the single-character atom at i, or 0 when there is none.
    const c = pattern[i];
    if (c === '\\') return SINGLE_CHAR_ESCAPE.exec(pattern.slice(i, i + 48))?.[0].length ?? 0;
    if (c === '[') {
      for (let j = i + 1; j < pattern.length; j++) {
        if (pattern[j] === '\\') {
          const e = SINGLE_CHAR_ESCAPE.exec(pattern.slice(j, j + 48));
          if (e === null) return 0;
          j += e[0].length - 1;
        } else if (pattern[j] === '[' || (pattern[j] === '&' && pattern[j + 1] === '&')) return 0; // nested sets, set operations
        else if (pattern[j] === ']' && j > i + 1 && !(j === i + 2 && pattern[i + 1] === '^')) return j - i + 1;
      }
      return 0;
    }
    return '()|*+?{}^$'.includes(c) ? 0 : c === undefined ? 0 : String.fromCodePoint(c.codePointAt(0)!).length;
  };
  while (i < pattern.length) {
    const c = pattern[i];
    if (c === '|') {
      i++;
      lastWasQuantified = false;
      continue;
    }
    if (c === '(' || c === ')') return 'uses a group, which the linear subset does not allow';
    if (c === '^' || c === '$') {
      if (lastWasQuantified) return 'has an atom after a quantified one';
      i++;
      continue;
    }
    if (lastWasQuantified) return `has an atom after a quantified one (at character ${i}): a backtracking engine can take quadratic or exponential time on it`;
    const n = atomAt();
    if (n === 0) return `has a construct at character ${i} outside the linear subset (single-character atoms, one trailing quantifier per alternative)`;
    i += n;
    const q = /^(?:[*+?]|\{(\d{1,5})(?:,(\d{0,5}))?\})/.exec(pattern.slice(i, i + 16));
    if (q !== null) {
      if (q[1] !== undefined && Number(q[1]) > MAX_MIN_REPEAT) return `repeats at least ${q[1]} times (at most ${MAX_MIN_REPEAT})`;
      i += q[0].length;
      if (pattern[i] === '?') i++;
      if (pattern[i] === '+' || pattern[i] === '*' || pattern[i] === '{') return `has two quantifiers in a row at character ${i}`;
      lastWasQuantified = true;
    }
  }
  return null;
}

/** A refused pattern of a tokenizer.json: where it sits (a JSON path) and why. */
export interface UnsafePatternReport {
  path: string;
  pattern: string;
  reason: string;
}

/**
 * The first refused `{"Regex": ...}` in `tokenizerJson` (every component: normalizer, pre_tokenizer, decoder,
 * post_processor, nested Sequences), or null. The vocabulary and merges (`model`) and `added_tokens` hold no patterns
 * and are skipped. A `Regex` that is not a string is refused too.
 */
export function findUnsafeTokenizerRegex(tokenizerJson: Record<string, unknown>): UnsafePatternReport | null {
  const stack: Array<{ value: unknown; path: string }> = Object.entries(tokenizerJson)
    .filter(([key]) => key !== 'model' && key !== 'added_tokens')
    .map(([key, value]) => ({ value, path: key }));
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    if (typeof value !== 'object' || value === null) continue;
    if (!Array.isArray(value) && Object.hasOwn(value, 'Regex')) {
      const pattern = (value as { Regex: unknown }).Regex;
      if (typeof pattern !== 'string') return { path: `${path}.Regex`, pattern: String(pattern), reason: 'is not a string' };
      const reason = unsafeTokenizerPattern(pattern);
      if (reason !== null) return { path: `${path}.Regex`, pattern, reason };
    }
    for (const [key, child] of Object.entries(value)) stack.push({ value: child, path: Array.isArray(value) ? `${path}[${key}]` : `${path}.${key}` });
  }
  return null;
}
