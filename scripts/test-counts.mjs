// How `npm test` (scripts/test-all.mjs) counts each suite's passed, failed and skipped tests, and the notes its
// summary prints under a suite: every failed test by file and name with the first line of its error, so a CI log
// that keeps only its tail still says what failed. Pure functions of a suite's exit code and its report or output.

/**
 * @typedef {{ passed: number, failed: number, skipped: number, notes: string[] }} Counts
 */

/** A note's error text is cut here: one line of the summary, not a stack trace. */
const MAX_MESSAGE = 240;

/** A suite that is one test: its exit code decides. */
export function stepCounts(code) {
  return code === 0 ? counts(1, 0) : counts(0, 1, [`exited with code ${code}`]);
}

/**
 * Vitest's JSON report (Jest's shape), or null when there is none. A test file that fails to load has no tests but
 * a failed status. `root`: the repository's path, cut from the file names.
 */
export function vitestCounts(report, code, root) {
  if (!report) return counts(0, 1, [`no JSON report (exit code ${code})`]);
  const files = report.testResults ?? [];
  const fileErrors = files.filter(
    (file) => file.status === 'failed' && !(file.assertionResults ?? []).some((t) => t.status === 'failed'),
  );
  const notes = fileErrors.map((file) => `error in ${relative(file.name, root)}: ${firstLine(file.message)}`);
  for (const file of files) {
    for (const test of (file.assertionResults ?? []).filter((t) => t.status === 'failed')) {
      notes.push(`failed: ${relative(file.name, root)} › ${test.fullName ?? test.title}: ${firstLine(test.failureMessages?.[0])}`);
    }
  }
  const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  return withExitCode(counts(report.numPassedTests ?? 0, (report.numFailedTests ?? 0) + fileErrors.length, notes, skipped), code);
}

/**
 * Playwright's JSON report, or null when there is none: `stats` counts tests; `errors` holds failures outside tests
 * (config, web server).
 */
export function playwrightCounts(report, code) {
  if (!report) return counts(0, 1, [`no JSON report (exit code ${code})`]);
  const stats = report.stats ?? {};
  const errors = report.errors ?? [];
  const notes = errors.map((e) => `error: ${firstLine(e.message)}`);
  for (const { title, file, status, message } of playwrightTests(report.suites ?? [])) {
    if (status === 'unexpected') notes.push(`failed: ${file} › ${title}: ${message}`);
  }
  if (stats.flaky) notes.push(`${stats.flaky} flaky (passed on retry)`);
  const passed = (stats.expected ?? 0) + (stats.flaky ?? 0);
  return withExitCode(counts(passed, (stats.unexpected ?? 0) + (stats.interrupted ?? 0) + errors.length, notes, stats.skipped ?? 0), code);
}

/**
 * Every test of a Playwright JSON report, flattened from its nested suites (a file's suite is titled with its path,
 * a `describe` with its title), with its outcome (`expected`, `unexpected`, `flaky`, `skipped`) and the first line
 * of its last try's error.
 */
function playwrightTests(suites, path = []) {
  return suites.flatMap((suite) => {
    const titles = suite.title && suite.title !== suite.file ? [...path, suite.title] : path;
    const here = (suite.specs ?? []).flatMap((spec) =>
      (spec.tests ?? []).map((test) => ({
        title: [...titles, spec.title].join(' › '),
        file: spec.file ?? suite.file ?? '',
        status: test.status,
        message: firstLine(test.results?.at(-1)?.error?.message),
      })),
    );
    return [...here, ...playwrightTests(suite.suites ?? [], titles)];
  });
}

/**
 * unittest's summary, on stderr: `Ran N tests in T s`, then `OK`, `OK (skipped=S)` or `FAILED (failures=F, errors=E,
 * skipped=S, expected failures=X, unexpected successes=U)`. Errors include a test module that fails to import and a
 * failing setUpClass. Failing sub-tests each add a failure, so passed is clamped at zero.
 */
export function unittestCounts(code, output) {
  const ran = /^Ran (\d+) tests? in /m.exec(output);
  if (!ran) return counts(0, 1, [`no unittest summary in the output (exit code ${code})`]);
  const field = (name) => Number(new RegExp(`\\b${name}=(\\d+)`).exec(output.slice(ran.index))?.[1] ?? 0);
  const failed = field('failures') + field('errors') + field('unexpected successes');
  const skipped = field('skipped');
  const passed = Math.max(0, Number(ran[1]) - skipped - field('expected failures') - failed);
  const notes = [...output.matchAll(/^(?:FAIL|ERROR): (.+)$/gm)].map((m) => `failed: ${m[1]}`);
  return withExitCode(counts(passed, failed, notes, skipped), code);
}

/** Turns "exited non-zero with nothing failed" and "ran zero tests" into one counted failure. */
function withExitCode(result, code) {
  if (result.passed + result.failed === 0) return counts(0, 1, [...result.notes, `ran zero tests (exit code ${code})`], result.skipped);
  if (code !== 0 && result.failed === 0) return counts(result.passed, 1, [...result.notes, `exited with code ${code}`], result.skipped);
  return result;
}

/** @returns {Counts} */
export function counts(passed, failed, notes = [], skipped = 0) {
  return { passed, failed, skipped, notes };
}

/** A path under the repository, as it reads in the summary. */
function relative(path, root) {
  return root ? String(path).replace(`${root}/`, '') : String(path);
}

/** The first non-empty line of an error, without ANSI colour codes, cut at MAX_MESSAGE characters. */
function firstLine(text) {
  // eslint-disable-next-line no-control-regex
  const plain = String(text ?? '').replace(/\u001b\[[0-9;]*m/g, '');
  const line = plain.split('\n').find((l) => l.trim() !== '')?.trim() ?? '(no message)';
  return line.length > MAX_MESSAGE ? `${line.slice(0, MAX_MESSAGE - 1)}…` : line;
}
