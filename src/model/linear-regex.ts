/**
 * A linear-time matcher for the regexes of an untrusted adapter_config.json (`target_modules`, `exclude_modules`),
 * with PEFT's semantics: Python's `re.fullmatch(pattern, module_name)`.
 *
 * Why not `new RegExp`: JavaScript's engine backtracks, and no syntactic guard short of a proof keeps every
 * catastrophic pattern out (`(.?){40}.{40}` passed the old one and took over a minute on one module name). This
 * module never backtracks: the pattern is parsed into a small AST, compiled into a Thompson NFA (char tests, splits,
 * jumps, zero-width assertions) and run as a set of states over the name (Pike's VM without captures), so matching
 * costs O(name length × program size) whatever the pattern. The program's size is bounded before it is built
 * (MAX_PROGRAM: counted repetition `x{n,m}` expands into copies), so a pattern cannot buy time with size either.
 *
 * Supported (Python syntax): literals and escaped punctuation; `.`; `\d \D \w \W \s \S` (Unicode, as Python's str
 * patterns); `\n \t \r \f \v`; classes `[...]`/`[^...]` with ranges and those escapes; groups `(...)`, `(?:...)`,
 * `(?P<name>...)`; `|`; `* + ? {n} {n,} {,m} {n,m}` and their lazy forms (laziness cannot change whether a full
 * match exists); anchors `^ $ \A \Z \b \B`. Refused by name, with LinearRegexError: backreferences, lookaround,
 * inline flags, possessive quantifiers, unknown escapes, patterns over MAX_PATTERN_LENGTH characters or compiling to
 * more than MAX_PROGRAM instructions.
 */

/** Longest pattern accepted; PEFT's own are under 100 characters. */
export const MAX_PATTERN_LENGTH = 1000;
/**
 * Most NFA instructions one pattern may compile to (`(.?){40}.{40}` needs 121, PEFT's usual patterns under 60): one
 * match costs at most this × the name's length, and a 256-layer model has 1,794 module names to test.
 */
export const MAX_PROGRAM = 500;
/** Largest count in `{n}`, `{n,m}`; Python's own limit is 4294967295, but a module name is under 200 characters. */
export const MAX_REPEAT = 256;

export class LinearRegexError extends Error {
  override name = 'LinearRegexError';
  constructor(
    readonly pattern: string,
    readonly reason: string,
  ) {
    super(`regex ${JSON.stringify(pattern.length > 100 ? `${pattern.slice(0, 100)}…` : pattern)} ${reason}`);
  }
}

// --- AST ------------------------------------------------------------------------------------------------------------

type CharTest = (c: string) => boolean;
type Assertion = 'start' | 'end' | 'textStart' | 'textEnd' | 'wordBoundary' | 'notWordBoundary';
type Node =
  | { kind: 'char'; test: CharTest }
  | { kind: 'assert'; what: Assertion }
  | { kind: 'seq'; items: Node[] }
  | { kind: 'alt'; options: Node[] }
  | { kind: 'repeat'; body: Node; min: number; max: number | null };

const WORD = /^[\p{L}\p{N}_]$/u;
const DIGIT = /^\p{Nd}$/u;
const SPACE = /^\s$/u;
const isWord: CharTest = (c) => WORD.test(c);
const CLASS_ESCAPES: Record<string, CharTest> = {
  d: (c) => DIGIT.test(c),
  D: (c) => !DIGIT.test(c),
  w: isWord,
  W: (c) => !isWord(c),
  s: (c) => SPACE.test(c),
  S: (c) => !SPACE.test(c),
};
const CONTROL_ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', f: '\f', v: '\v', a: '\x07' };
const ASSERT_ESCAPES: Record<string, Assertion> = { A: 'textStart', Z: 'textEnd', b: 'wordBoundary', B: 'notWordBoundary' };

/** Parses Python `re` syntax into the AST; throws LinearRegexError for anything outside the supported subset. */
class Parser {
  private i = 0;
  private readonly chars: string[];
  constructor(private readonly pattern: string) {
    this.chars = [...pattern];
  }

  parse(): Node {
    const node = this.alternation();
    if (this.i < this.chars.length) this.fail(`has an unbalanced ")" at character ${this.i}`);
    return node;
  }

  private fail(reason: string): never {
    throw new LinearRegexError(this.pattern, reason);
  }

  private peek(offset = 0): string | undefined {
    return this.chars[this.i + offset];
  }

  private alternation(): Node {
    const options = [this.sequence()];
    while (this.peek() === '|') {
      this.i++;
      options.push(this.sequence());
    }
    return options.length === 1 ? options[0] : { kind: 'alt', options };
  }

  private sequence(): Node {
    const items: Node[] = [];
    for (let c = this.peek(); c !== undefined && c !== '|' && c !== ')'; c = this.peek()) {
      const atom = this.atom();
      items.push(this.quantified(atom));
    }
    return { kind: 'seq', items };
  }

  private quantified(atom: Node): Node {
    const q = this.quantifier();
    if (q === null) return atom;
    if (atom.kind === 'assert') this.fail('repeats an anchor, which Python refuses ("nothing to repeat")');
    if (this.peek() === '?') this.i++; // lazy: the same set of full matches
    else if (this.peek() === '+') this.fail('uses a possessive quantifier, which changes what matches; write the pattern without it');
    if (this.quantifier(true) !== null) this.fail('has two quantifiers in a row ("multiple repeat" in Python)');
    return { kind: 'repeat', body: atom, ...q };
  }

  /** A quantifier at the cursor (consumed unless `peekOnly`), or null. `{` that is no quantifier is a literal. */
  private quantifier(peekOnly = false): { min: number; max: number | null } | null {
    const c = this.peek();
    const simple = c === '*' ? { min: 0, max: null } : c === '+' ? { min: 1, max: null } : c === '?' ? { min: 0, max: 1 } : null;
    if (simple !== null) {
      if (!peekOnly) this.i++;
      return simple;
    }
    if (c !== '{') return null;
    const m = /^\{(\d*)(?:(,)(\d*))?\}/.exec(this.chars.slice(this.i, this.i + 16).join(''));
    if (m === null || (m[1] === '' && m[2] === undefined)) return null;
    const min = m[1] === '' ? 0 : Number(m[1]);
    const max = m[2] === undefined ? min : m[3] === '' ? null : Number(m[3]);
    if (min > MAX_REPEAT || (max !== null && max > MAX_REPEAT)) this.fail(`repeats ${Math.max(min, max ?? 0)} times (at most ${MAX_REPEAT})`);
    if (max !== null && max < min) this.fail(`has the repeat {${min},${max}} with its bounds reversed`);
    if (!peekOnly) this.i += m[0].length;
    return { min, max };
  }

  private atom(): Node {
    const c = this.chars[this.i++];
    switch (c) {
      case '(':
        return this.group();
      case '[':
        return { kind: 'char', test: this.charClass() };
      case '.':
        return { kind: 'char', test: (x) => x !== '\n' };
      case '^':
        return { kind: 'assert', what: 'start' };
      case '$':
        return { kind: 'assert', what: 'end' };
      case '\\':
        return this.escape();
      case '*':
      case '+':
      case '?':
        return this.fail(`has nothing before the quantifier "${c}" at character ${this.i - 1}`);
      default: {
        if (c === '{' && this.quantifierAt(this.i - 1)) this.fail(`has nothing before the quantifier at character ${this.i - 1}`);
        return { kind: 'char', test: (x) => x === c };
      }
    }
  }

  private quantifierAt(at: number): boolean {
    const saved = this.i;
    this.i = at;
    const q = this.quantifier(true);
    this.i = saved;
    return q !== null;
  }

  private group(): Node {
    if (this.peek() === '?') {
      const next = this.peek(1);
      if (next === ':') this.i += 2;
      else if (next === 'P' && this.peek(2) === '<') {
        const close = this.chars.indexOf('>', this.i);
        const name = close < 0 ? '' : this.chars.slice(this.i + 3, close).join('');
        if (!/^[A-Za-z_]\w*$/.test(name)) this.fail('has a malformed named group');
        this.i = close + 1;
      } else if (next === 'P' && this.peek(2) === '=') this.fail('uses a named backreference (?P=…), which cannot be matched in linear time');
      else if (next === '=' || next === '!' || (next === '<' && (this.peek(2) === '=' || this.peek(2) === '!'))) this.fail('uses a lookaround assertion, which is not supported');
      else this.fail(`uses the group syntax (?${next ?? ''}…), which is not supported (inline flags, comments, conditionals)`);
    }
    const body = this.alternation();
    if (this.chars[this.i] !== ')') this.fail('has an unclosed "("');
    this.i++;
    return body;
  }

  private escape(): Node {
    const c = this.chars[this.i++];
    if (c === undefined) this.fail('ends with a lone backslash');
    if (c in ASSERT_ESCAPES) return { kind: 'assert', what: ASSERT_ESCAPES[c] };
    return { kind: 'char', test: this.escapeTest(c) };
  }

  /** The char test of `\c` (inside or outside a class). */
  private escapeTest(c: string): CharTest {
    if (c in CLASS_ESCAPES) return CLASS_ESCAPES[c];
    if (c in CONTROL_ESCAPES) {
      const ch = CONTROL_ESCAPES[c];
      return (x) => x === ch;
    }
    if (/^[1-9]$/.test(c) || c === 'g' || c === 'k') this.fail('uses a backreference, which cannot be matched in linear time');
    if (/^[\p{L}\p{N}]$/u.test(c)) this.fail(`uses the escape \\${c}, which is not supported`);
    return (x) => x === c;
  }

  /** `[...]` after its `[`: a set of ranges and escapes, maybe negated. Python takes a leading `]` literally. */
  private charClass(): CharTest {
    const negated = this.peek() === '^';
    if (negated) this.i++;
    const tests: CharTest[] = [];
    let first = true;
    for (;;) {
      const c = this.chars[this.i++];
      if (c === undefined) this.fail('has an unclosed "["');
      if (c === ']' && !first) break;
      first = false;
      let lo: string | null = c;
      if (c === '\\') {
        const e = this.chars[this.i++];
        if (e === undefined) this.fail('ends with a lone backslash');
        if (e in CLASS_ESCAPES) {
          tests.push(CLASS_ESCAPES[e]);
          lo = null;
        } else if (e in CONTROL_ESCAPES) lo = CONTROL_ESCAPES[e];
        else if (e === 'b') lo = '\b';
        else {
          this.escapeTest(e); // refuses backreferences and unknown letter escapes
          lo = e;
        }
      }
      if (lo !== null && this.peek() === '-' && this.peek(1) !== undefined && this.peek(1) !== ']') {
        this.i++;
        let hi = this.chars[this.i++];
        if (hi === '\\') {
          const e = this.chars[this.i++] ?? '';
          if (e in CLASS_ESCAPES) this.fail('has a range ending in a class escape');
          hi = CONTROL_ESCAPES[e] ?? e;
        }
        const [a, b] = [lo.codePointAt(0)!, hi.codePointAt(0)!];
        if (b < a) this.fail(`has the reversed range ${lo}-${hi}`);
        tests.push((x) => {
          const p = x.codePointAt(0)!;
          return p >= a && p <= b;
        });
      } else if (lo !== null) {
        const ch = lo;
        tests.push((x) => x === ch);
      }
    }
    return negated ? (x) => !tests.some((t) => t(x)) : (x) => tests.some((t) => t(x));
  }
}

// --- NFA ------------------------------------------------------------------------------------------------------------

type Instruction =
  | { op: 'char'; test: CharTest; next: number }
  | { op: 'split'; a: number; b: number }
  | { op: 'jump'; to: number }
  | { op: 'assert'; what: Assertion; next: number }
  | { op: 'match' };

/** Instructions `node` compiles to (an upper bound is enough: it guards the expansion before it happens). */
function programSize(node: Node): number {
  switch (node.kind) {
    case 'char':
    case 'assert':
      return 1;
    case 'seq':
      return node.items.reduce((sum, n) => sum + programSize(n), 0);
    case 'alt':
      return node.options.reduce((sum, n) => sum + programSize(n) + 2, 0);
    case 'repeat':
      return (programSize(node.body) + 2) * Math.max(1, node.max ?? node.min + 1);
    default:
      return node satisfies never;
  }
}

/** Appends `node`'s code to `prog`, every dangling exit pointing at the next instruction emitted afterwards. */
function emit(node: Node, prog: Instruction[]): void {
  const here = () => prog.length;
  switch (node.kind) {
    case 'char':
      prog.push({ op: 'char', test: node.test, next: here() + 1 });
      return;
    case 'assert':
      prog.push({ op: 'assert', what: node.what, next: here() + 1 });
      return;
    case 'seq':
      for (const item of node.items) emit(item, prog);
      return;
    case 'alt': {
      // split L1, next; L1: option; jump END; next: split …; the last option falls through to END.
      const jumps: Array<{ op: 'jump'; to: number }> = [];
      node.options.forEach((option, k) => {
        const last = k === node.options.length - 1;
        const split = last ? null : { op: 'split' as const, a: here() + 1, b: -1 };
        if (split !== null) prog.push(split);
        emit(option, prog);
        if (split !== null) {
          const jump = { op: 'jump' as const, to: -1 };
          prog.push(jump);
          jumps.push(jump);
          split.b = here();
        }
      });
      for (const j of jumps) j.to = here();
      return;
    }
    case 'repeat': {
      for (let k = 0; k < node.min; k++) emit(node.body, prog);
      if (node.max === null) {
        // L: split BODY, END; BODY: body; jump L
        const loop = here();
        const split = { op: 'split' as const, a: loop + 1, b: -1 };
        prog.push(split);
        emit(node.body, prog);
        prog.push({ op: 'jump', to: loop });
        split.b = here();
        return;
      }
      const splits: Array<{ op: 'split'; a: number; b: number }> = [];
      for (let k = node.min; k < node.max; k++) {
        const split = { op: 'split' as const, a: here() + 1, b: -1 };
        prog.push(split);
        splits.push(split);
        emit(node.body, prog);
      }
      for (const s of splits) s.b = here();
      return;
    }
    default:
      node satisfies never;
  }
}

function holds(what: Assertion, text: readonly string[], at: number): boolean {
  const wordBefore = at > 0 && isWord(text[at - 1]);
  const wordAfter = at < text.length && isWord(text[at]);
  switch (what) {
    case 'start':
    case 'textStart':
      return at === 0;
    case 'end':
      return at === text.length || (at === text.length - 1 && text[at] === '\n');
    case 'textEnd':
      return at === text.length;
    case 'wordBoundary':
      return wordBefore !== wordAfter;
    case 'notWordBoundary':
      return wordBefore === wordAfter;
    default:
      return what satisfies never;
  }
}

/** A compiled pattern: `fullMatch(name)` runs in O(name length × program size). */
export interface LinearRegex {
  readonly pattern: string;
  readonly programSize: number;
  fullMatch(text: string): boolean;
}

/** Compiles `pattern` (Python `re` syntax); throws LinearRegexError when it is outside the supported subset. */
export function compileLinearRegex(pattern: string): LinearRegex {
  if (pattern.length > MAX_PATTERN_LENGTH) throw new LinearRegexError(pattern, `has ${pattern.length} characters (at most ${MAX_PATTERN_LENGTH})`);
  const ast = new Parser(pattern).parse();
  const size = programSize(ast) + 1;
  if (size > MAX_PROGRAM) throw new LinearRegexError(pattern, `would compile to ${size} instructions (at most ${MAX_PROGRAM}): its counted repeats are too large`);
  const prog: Instruction[] = [];
  emit(ast, prog);
  prog.push({ op: 'match' });

  const fullMatch = (input: string): boolean => {
    const text = [...input];
    // Generation marks: a state enters a list at most once per position, which is what makes the run linear.
    const mark = new Int32Array(prog.length).fill(-1);
    let current: number[] = [];
    const stack: number[] = [];
    /** Adds `pc` and every state reachable from it without consuming a character, at position `at`. */
    const add = (list: number[], pc: number, at: number) => {
      stack.push(pc);
      while (stack.length > 0) {
        const p = stack.pop()!;
        if (mark[p] === at) continue;
        mark[p] = at;
        const ins = prog[p];
        if (ins.op === 'jump') stack.push(ins.to);
        else if (ins.op === 'split') stack.push(ins.b, ins.a);
        else if (ins.op === 'assert') {
          if (holds(ins.what, text, at)) stack.push(ins.next);
        } else list.push(p);
      }
    };
    add(current, 0, 0);
    for (let at = 0; at < text.length && current.length > 0; at++) {
      const next: number[] = [];
      for (const p of current) {
        const ins = prog[p];
        if (ins.op === 'char' && ins.test(text[at])) add(next, ins.next, at + 1);
      }
      current = next;
    }
    return current.some((p) => prog[p].op === 'match');
  };
  return { pattern, programSize: prog.length, fullMatch };
}
