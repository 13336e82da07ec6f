/**
 * Every parser that reads model or user text runs in linear time, on adversarial inputs up to 10^6 characters
 * (issue "hostile values": one backtracking regex turned `ANSWER ``` ` + 6,000 spaces + `x` into a 65 s step).
 *
 * How linearity is checked without a wall-clock limit: for each input family the probe times sizes 10^2, 10^3, …
 * up to the family's largest size, each as the best of 3 runs (a run repeats the call until ≥ 10 ms have passed and
 * takes the mean), and requires every 10× step in size to cost at most RATIO_LIMIT× in time; a step over the limit is
 * measured again (twice at most), so a pause caused by another process does not fail it. Linear code gives ~10
 * (less while fixed costs dominate), quadratic code ~100, cubic ~1000. The probe stops at the first bad step, so a
 * super-linear parser fails after a fraction of a second instead of running for minutes.
 */
import { describe, expect, it } from 'vitest';
import { parseAction } from '../../src/env/actions.ts';
import { answerInterpretations, answerMatches, normalizeText, readNumber, splitCells } from '../../src/env/answer.ts';
import type { ResultTable } from '../../src/env/verifier.ts';
import { parseCompletion } from '../../src/policies/llm/parse.ts';
import { bestMsPerCall } from '../fixtures/time-per-call.ts';

/**
 * Largest allowed time ratio for a 10× larger input. Linear code gives ~10, and up to ~21 where an input crosses the
 * size of V8's young generation (the collector copies the live cells more often; 34 was measured once on the 2-core
 * CI machine for a reader whose previous version gave the same); quadratic code ~100, cubic ~1000, so 50 still
 * tells them apart.
 */
const RATIO_LIMIT = 50;
/** Each run repeats the call until this much time has passed, so tiny inputs are timed above the timer's noise. */
const RUN_MS = 10;

/** Mean time of one call in ms, the best of 3 runs. */
const timeCall = (f: () => unknown): number => bestMsPerCall(f, 3, RUN_MS);

interface Probe {
  sizes: number[];
  ms: number[];
  ratios: number[];
}

/** Times `run(make(n))` for n = 10^2 … maxSize and stops at the first 10× step whose time ratio exceeds the limit. */
function probe(make: (n: number) => string, run: (input: string) => unknown, maxSize: number): Probe {
  const out: Probe = { sizes: [], ms: [], ratios: [] };
  run(make(100)); // warm-up: the first call pays for compilation
  let previous = '';
  for (let n = 100; n <= maxSize; n *= 10) {
    const input = make(n);
    let ms = timeCall(() => run(input));
    let ratio = out.ms.length > 0 ? ms / out.ms[out.ms.length - 1] : 1;
    for (let retry = 0; retry < 2 && ratio > RATIO_LIMIT; retry++) {
      // Measure the step again: a pause from another process or a collection should not fail the test, while a
      // super-linear step fails every time.
      const before = timeCall(() => run(previous));
      ms = timeCall(() => run(input));
      out.ms[out.ms.length - 1] = before;
      ratio = ms / before;
    }
    if (out.ms.length > 0) out.ratios.push(ratio);
    out.sizes.push(n);
    out.ms.push(ms);
    previous = input;
    if (ratio > RATIO_LIMIT) break;
  }
  return out;
}

/** `s` repeated to exactly n characters. */
const fill = (s: string, n: number): string => s.repeat(Math.ceil(n / s.length)).slice(0, n);

const GOLD: ResultTable = { columns: ['a', 'b'], rows: [['x', 1], ['y', 2]] };
const GOLD_ONE: ResultTable = { columns: ['a'], rows: [[42]] };

type Family = [label: string, make: (n: number) => string, maxSize: number];

/** Inputs aimed at the answer reader: fences, numbers, quotes, tables, separators, bullets. */
const ANSWER_INPUTS: Family[] = [
  ['fence, spaces, no close', (n) => '```' + ' '.repeat(n) + 'x', 1e6],
  ['fence, spaces, closed late', (n) => '```' + ' '.repeat(n) + 'x\n' + ' '.repeat(n) + '`` `', 1e5],
  ['backticks', (n) => '`'.repeat(n), 1e6],
  ['fence, newlines and spaces', (n) => '```\n' + fill('\n \n', n) + 'x', 1e5],
  ['digits then junk', (n) => '1'.repeat(n) + 'x', 1e6],
  ['digits with a point then junk', (n) => '1'.repeat(n) + '.' + '1'.repeat(n) + 'ex', 1e5],
  ['thousands groups then junk', (n) => '1' + fill(',111', n) + ',11x', 1e6],
  ['double quotes', (n) => '"'.repeat(n), 1e6],
  ['quoted cells never closed', (n) => fill('"a,', n - 1) + 'x', 1e6],
  ['quoted cells, pipes, never closed', (n) => fill("'a|", n - 1) + 'x', 1e6],
  ['quote, spaces, quote', (n) => fill("'   ", n) + 'x', 1e6],
  ['pipes', (n) => '|'.repeat(n), 1e6],
  ['markdown separator then junk', (n) => '| a |\n|' + fill('--|', n) + ' x\n| 1 |', 1e6],
  ['markdown table of 10^5 cells', (n) => '| a | b |\n|---|---|\n' + fill('| x | 1 |\n', n), 1e6],
  ['newlines', (n) => '\n'.repeat(n) + 'x', 1e6],
  ['bullets', (n) => fill('- \n', n), 1e6],
  ['spaces then a word', (n) => ' '.repeat(n) + 'x', 1e6],
  ['semicolons', (n) => ';'.repeat(n) + 'x', 1e6],
  ['nested JSON', (n) => '['.repeat(n), 1e5],
  // Issue 21's readers: Python literals, CSV quotes across lines, "" escapes, name: value lines, tabs.
  ['Python brackets and tuples, nested', (n) => fill('[(', n), 1e6],
  ['Python list of strings', (n) => '[' + fill("'a', ", n - 2) + ']', 1e6],
  ['Python string never closed', (n) => "['" + 'a'.repeat(n), 1e6],
  ['Python escapes', (n) => "['" + fill('\\x4', n) + "']", 1e6],
  ['CSV cells of escaped quotes, never closed', (n) => fill('"a"",', n), 1e6],
  ['CSV quote runs', (n) => fill('"""" ,', n), 1e6],
  ['CSV quoted cells across lines', (n) => fill('"a\n', n), 1e6],
  ['CSV quoted cells, closed late', (n) => '"' + fill('a\n"",', n) + '"', 1e6],
  ['name: value lines', (n) => fill('a: 1\n', n), 1e6],
  ['tabs then a word', (n) => '\t'.repeat(n) + 'x', 1e6],
  ['bracketed list', (n) => '[' + fill('a,', n - 2) + ']', 1e6],
];

/** Inputs aimed at the text action parser. */
const ACTION_INPUTS: Family[] = [
  ['spaces', (n) => ' '.repeat(n), 1e6],
  ['letters', (n) => 'Q'.repeat(n), 1e6],
  ['keyword, spaces, colon', (n) => 'QUERY' + ' \t'.repeat(n / 2) + ':', 1e6],
  ['DESCRIBE and semicolons', (n) => 'DESCRIBE t' + ';'.repeat(n) + 'x', 1e6],
  ['DESCRIBE and semicolons, spaced', (n) => 'DESCRIBE t' + fill('; ', n) + 'x', 1e6],
  ['fence of spaces', (n) => '```' + ' '.repeat(n) + 'x', 1e6],
  ['tool call, open', (n) => '<tool_call>' + '{'.repeat(n), 1e6],
  ['JSON-like', (n) => '{' + '"a":'.repeat(n / 4), 1e6],
  ['ANSWER fence of spaces', (n) => 'ANSWER ```' + ' '.repeat(n) + 'x', 1e6],
];

/** Inputs aimed at the model completion parser. */
const COMPLETION_INPUTS: Family[] = [
  ['think openings', (n) => fill('<think>', n), 1e6],
  ['tool call openings', (n) => fill('<tool_call>', n), 1e6],
  ['one call, huge body', (n) => '<tool_call>{"name": "query", "arguments": {"sql": "' + ' '.repeat(n) + '"}}</tool_call>', 1e6],
  ['one call, nested JSON', (n) => '<tool_call>' + '['.repeat(n) + '</tool_call>', 1e5],
  ['whitespace', (n) => fill(' \n\t', n), 1e6],
  ['answer with a spaced fence', (n) => `<tool_call>{"name": "answer", "arguments": {"value": "\`\`\`${' '.repeat(n)}x"}}</tool_call>`, 1e6],
];

function expectLinear(label: string, make: (n: number) => string, run: (input: string) => unknown, maxSize: number): void {
  const p = probe(make, run, maxSize);
  const detail = `${label}: sizes ${p.sizes.join(', ')}; ms ${p.ms.map((m) => m.toPrecision(3)).join(', ')}; ratios ${p.ratios.map((r) => r.toFixed(1)).join(', ')}`;
  if (process.env.SQLENV_LINEAR_REPORT) console.log(detail);
  expect(Math.max(...p.ratios), detail).toBeLessThanOrEqual(RATIO_LIMIT);
  expect(p.sizes[p.sizes.length - 1], detail).toBe(maxSize);
}

describe('answer parsing is linear', () => {
  it.each(ANSWER_INPUTS)('answerInterpretations: %s', (label, make, maxSize) => {
    expectLinear(label, make, answerInterpretations, maxSize);
  });
  it.each(ANSWER_INPUTS)('answerMatches: %s', (label, make, maxSize) => {
    expectLinear(label, make, (s) => [answerMatches(s, GOLD, false), answerMatches(s, GOLD_ONE, true)], maxSize);
  });
  it.each(ANSWER_INPUTS)('splitCells by | and ,: %s', (label, make, maxSize) => {
    expectLinear(label, make, (s) => [splitCells(s, '|'), splitCells(s, ','), splitCells(s, '\t')], maxSize);
  });
  it.each(ANSWER_INPUTS)('normalizeText and readNumber: %s', (label, make, maxSize) => {
    expectLinear(label, make, (s) => readNumber(normalizeText(s)), maxSize);
  });
  it.each(ANSWER_INPUTS)('readNumber on raw text: %s', (label, make, maxSize) => {
    expectLinear(label, make, readNumber, maxSize);
  });
});

describe('action parsing is linear', () => {
  it.each([...ACTION_INPUTS, ...ANSWER_INPUTS])('parseAction: %s', (label, make, maxSize) => {
    expectLinear(label, make, parseAction, maxSize);
  });
  it.each([...COMPLETION_INPUTS, ...ACTION_INPUTS])('parseCompletion: %s', (label, make, maxSize) => {
    expectLinear(label, make, parseCompletion, maxSize);
  });
});

describe('the probe', () => {
  it('catches a quadratic function', () => {
    // Reads every prefix again for every position: ~n²/2 character reads.
    const quadratic = (s: string): number => {
      let total = 0;
      for (let i = 0; i < s.length; i++) for (let j = 0; j < i; j++) total += s.charCodeAt(j) & 1;
      return total;
    };
    const p = probe((n) => 'x'.repeat(n), quadratic, 1e5);
    expect(Math.max(...p.ratios)).toBeGreaterThan(RATIO_LIMIT);
  });
});
