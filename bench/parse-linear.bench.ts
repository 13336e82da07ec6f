/**
 * `npx tsx bench/parse-linear.bench.ts [--large]` (suggested script: `bench:parse-linear`): the time the text parsers
 * take on the adversarial families of tests/fixtures/hostile-text.ts at 10^2 … 10^5 characters (10^6 with --large),
 * printed as the ratio of each 10× step (linear code ~10, quadratic ~100). The tests check the same parsers by an
 * exact work count (tests/env/parse-linear.test.ts); this is the clock's view of it, for a person to read, never a
 * pass/fail.
 *
 * Each size is timed as the best of 3 runs of at least 20 ms of user CPU time each (process.cpuUsage: the kernel's
 * part — faulting in a large string's pages — and time off the CPU are left out), as the mean per call. Prints the
 * families with the largest step ratio first.
 */
import { parseAction } from '../src/env/actions.ts';
import { answerInterpretations } from '../src/env/answer.ts';
import { parseCompletion } from '../src/policies/llm/parse.ts';
import { readAnswer } from '../src/ui/play/answer-table.ts';
import { ACTION_INPUTS, ANSWER_INPUTS, COMPLETION_INPUTS, PASTE_INPUTS, type Family } from '../tests/fixtures/hostile-text.ts';

/**
 * Mean user CPU ms of one call, the best of `runs` runs; a run repeats the call (in doubling batches, so reading the
 * CPU clock does not dominate tiny calls) until it has used `runMs` of user CPU time.
 */
function bestMsPerCall(f: () => unknown, runs = 3, runMs = 20): number {
  let best = Infinity;
  for (let run = 0; run < runs; run++) {
    let calls = 0;
    let batch = 1;
    const cpuStart = process.cpuUsage();
    let userMs = 0;
    while (userMs < runMs) {
      for (let i = 0; i < batch; i++) f();
      calls += batch;
      batch *= 2;
      userMs = process.cpuUsage(cpuStart).user / 1000;
    }
    best = Math.min(best, userMs / calls);
  }
  return best;
}

/** 10^2 … 10^5 characters; `--large` adds 10^6 (minutes on a busy 2-core machine). */
const SIZES = [100, 1_000, 10_000, 100_000, ...(process.argv.includes('--large') ? [1_000_000] : [])];

interface Row {
  parser: string;
  family: string;
  ms: number[];
  ratios: number[];
}

function timeFamily(parser: string, run: (s: string) => unknown, [family, make]: Family): Row {
  run(make(100)); // warm-up: the first call pays for compilation
  const ms = SIZES.map((n) => {
    const input = make(n);
    return bestMsPerCall(() => run(input));
  });
  return { parser, family, ms, ratios: ms.slice(1).map((m, i) => m / ms[i]) };
}

const PARSERS: Array<[string, (s: string) => unknown, Family[]]> = [
  ['answerInterpretations', answerInterpretations, ANSWER_INPUTS],
  ['parseAction', parseAction, [...ACTION_INPUTS, ...ANSWER_INPUTS]],
  ['parseCompletion', parseCompletion, [...COMPLETION_INPUTS, ...ACTION_INPUTS]],
  // Pastes longer than the reader's cap are sent as typed, so the top sizes time the cap check only.
  ['readAnswer (Play paste)', (s) => readAnswer(s), PASTE_INPUTS],
];

const rows = PARSERS.flatMap(([parser, run, families]) => families.map((family) => timeFamily(parser, run, family)));
rows.sort((a, b) => Math.max(...b.ratios) - Math.max(...a.ratios));
console.log(`sizes ${SIZES.join(', ')}: ms per call at the largest size, then the time ratio of each 10× step`);
for (const row of rows) {
  console.log(`${Math.max(...row.ratios).toFixed(1).padStart(6)}  ${row.parser}: ${row.family} — ${row.ms[row.ms.length - 1].toPrecision(3)} ms; ratios ${row.ratios.map((r) => r.toFixed(1)).join(', ')}`);
}
