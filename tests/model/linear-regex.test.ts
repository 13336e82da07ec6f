/**
 * linear-regex.ts: PEFT's `re.fullmatch` semantics without backtracking. Checked three ways: a table whose answers
 * come from CPython's `re.fullmatch` (generated once with Python, not with this code), a seeded differential fuzz
 * against JavaScript's own RegExp on short inputs where backtracking is harmless, and the hostile patterns of issue 22
 * (`(.?){40}.{40}` took over a minute in a backtracking engine) answered correctly here. Patterns outside the subset
 * are refused by name.
 */
import { describe, expect, it } from 'vitest';
import { createRng, randomInt, type Rng } from '../../src/data/rng.ts';
import { compileLinearRegex, LinearRegexError, MAX_PROGRAM } from '../../src/model/linear-regex.ts';
import { fuzzSeed } from './fuzz-support.ts';

const NAMES = ["model.layers.0.self_attn.q_proj", "model.layers.12.self_attn.v_proj", "model.layers.3.mlp.down_proj", "lm_head", "model.embed_tokens", "model.layers.1.mlp.gate_proj"];
/** Pattern → indices into NAMES that CPython 3's re.fullmatch accepts (generated with Python, not with this code). */
const PYTHON_FULLMATCH: ReadonlyArray<[string, number[]]> = [
  ["model\\.layers\\.\\d+\\.self_attn\\.(q|k)_proj", [0]],
  [".*\\.(q_proj|v_proj)", [0, 1]],
  [".*_proj", [0, 1, 2, 5]],
  ["(?P<x>model)\\.layers\\.[0-9]{1,2}\\..*", [0, 1, 2, 5]],
  ["model\\.layers\\.(0|3)\\..*proj", [0, 2]],
  ["[^.]+", [3]],
  [".*mlp.*|lm_head", [2, 3, 5]],
  ["model\\.layers\\.\\d{2}\\..*", [1]],
  ["(.?){10}.{10}", [4]],
  ["\\bmodel\\b.*proj$", [0, 1, 2, 5]],
  [".*\\Bhead", [3]],
  ["model.layers.\\d+.(self_attn|mlp).(q|gate)_proj", [0, 5]],
  ["(?:model\\.)?embed_tokens|.*embed_tokens", [4]],
  ["[]a-z_.0-9]+", [0, 1, 2, 3, 4, 5]],
  [".*[^a-z]proj", [0, 1, 2, 5]],
  [".*\\w+_proj\\Z", [0, 1, 2, 5]],
  ["^lm_head$", [3]],
  [".*?q_proj", [0]],
  ["model\\.layers\\.1?\\d\\..*", [0, 1, 2, 5]],
  ["(\\w+\\.)+q_proj", [0]],
  ["x{0}lm_head", [3]],
  ["lm_he{1,}ad|", [3]],
  [".{3,7}", [3]],
  ["[\\d.a-z]*_[^\\s]+", [0, 1, 2, 3, 4, 5]],
];

describe('fullMatch agrees with Python re.fullmatch', () => {
  it.each(PYTHON_FULLMATCH)('%s', (pattern, matching) => {
    const re = compileLinearRegex(pattern);
    expect(NAMES.filter((n) => re.fullMatch(n))).toEqual(matching.map((i) => NAMES[i]));
  });
});

describe('hostile patterns finish with the right answer', () => {
  // Each takes exponential time in a backtracking engine on these inputs (Python's and JavaScript's alike).
  it.each([
    ['(.?){40}.{40}', 'model.layers.10.self_attn.q_proj', false],
    ['(.?){40}.{40}', 'x'.repeat(40), true],
    ['(.?){40}.{40}', 'x'.repeat(80), true],
    ['(.?){40}.{40}', 'x'.repeat(81), false],
    ['(a|aa)*b', 'a'.repeat(200), false],
    ['(a|aa)*b', `${'a'.repeat(200)}b`, true],
    ['(.*)*x', 'y'.repeat(200), false],
    ['(a+)+$', `${'a'.repeat(200)}!`, false],
    ['(\\w|\\w)*;', `${'w'.repeat(200)}`, false],
    ['(\\w|\\w)*;', `${'w'.repeat(200)};`, true],
  ])('%s on %s… is %s', (pattern, text, want) => {
    expect(compileLinearRegex(pattern).fullMatch(text)).toBe(want);
  });
});

describe('refused patterns', () => {
  it.each([
    ['(a)\\1', /backreference/],
    ['(?P<x>a)(?P=x)', /named backreference/],
    ['(?=a)a', /lookaround/],
    ['(?<!a)b', /lookaround/],
    ['(?i)q_proj', /group syntax/],
    ['a*+', /possessive/],
    ['a**', /two quantifiers/],
    ['*a', /nothing before/],
    ['(a', /unclosed "\("/],
    ['a)', /unbalanced/],
    ['[a', /unclosed "\["/],
    ['\\q', /escape \\q/],
    ['[z-a]', /reversed range/],
    ['a{3,2}', /reversed/],
    ['a{100000}', /repeats 100000 times/],
    ['((a{200}){200})', new RegExp(`at most ${MAX_PROGRAM}`)],
    ['x'.repeat(1001), /1001 characters/],
  ])('%s', (pattern, message) => {
    expect(() => compileLinearRegex(pattern)).toThrow(LinearRegexError);
    expect(() => compileLinearRegex(pattern)).toThrow(message);
  });
});

/** A random pattern over a tiny alphabet, in the syntax both engines read the same way. */
function randomPattern(rng: Rng, depth = 0): string {
  const atoms = ['a', 'b', '.', '[ab]', '[^a]', '\\.', '(a|b)', '(?:ab|a)'];
  const parts: string[] = [];
  for (let k = 1 + randomInt(rng, 3); k > 0; k--) {
    let atom = depth < 2 && randomInt(rng, 4) === 0 ? `(${randomPattern(rng, depth + 1)})` : atoms[randomInt(rng, atoms.length)];
    const q = randomInt(rng, 8);
    atom += q === 0 ? '*' : q === 1 ? '+' : q === 2 ? '?' : q === 3 ? `{${randomInt(rng, 3)},${2 + randomInt(rng, 2)}}` : q === 4 ? '*?' : '';
    parts.push(atom);
  }
  return randomInt(rng, 5) === 0 ? `${parts.join('')}|${randomPattern(rng, depth + 1)}` : parts.join('');
}

describe('seeded differential fuzz against JavaScript RegExp', () => {
  const seed = fuzzSeed('linear-regex');
  it(`2,000 random patterns × 8 short texts give RegExp's answers (seed ${seed})`, () => {
    const rng = createRng(seed);
    let matches = 0;
    let tooLarge = 0;
    for (let i = 0; i < 2000; i++) {
      const pattern = randomPattern(rng);
      let mine: ReturnType<typeof compileLinearRegex>;
      try {
        mine = compileLinearRegex(pattern);
      } catch (error) {
        // A nested counted repeat can exceed the program budget (MAX_PROGRAM): refused by name, never answered wrong.
        expect(error, `seed ${seed}, case ${i}: /${pattern}/`).toBeInstanceOf(LinearRegexError);
        expect(String(error), `seed ${seed}, case ${i}`).toMatch(new RegExp(`would compile to \\d+ instructions \\(at most ${MAX_PROGRAM}\\)`));
        tooLarge++;
        continue;
      }
      const theirs = new RegExp(`^(?:${pattern})$`);
      for (let j = 0; j < 8; j++) {
        const text = Array.from({ length: randomInt(rng, 7) }, () => 'ab.'[randomInt(rng, 3)]).join('');
        const want = theirs.test(text);
        matches += want ? 1 : 0;
        expect(mine.fullMatch(text), `seed ${seed}, case ${i}: /${pattern}/ on ${JSON.stringify(text)}`).toBe(want);
      }
    }
    expect(matches, `seed ${seed}: the texts should match sometimes`).toBeGreaterThan(100);
    expect(tooLarge, `seed ${seed}: patterns refused as too large`).toBeLessThan(20);
  });
});
