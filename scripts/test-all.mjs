#!/usr/bin/env node
// `npm test`: every suite of the project, in order — lint, typecheck, unit (Vitest), python (unittest: the Python
// client in python/ against a real `sqlenv serve`), build, e2e (Playwright).
//
// How to read the counts: lint, typecheck and build are one test each (passed or failed); Vitest and Playwright
// count their own tests from their JSON reports (failed includes errors and timeouts; skipped is reported apart);
// the Python suite is counted from unittest's own summary lines (`Ran N tests`, `OK`/`FAILED (failures=…, errors=…)`).
// A suite that crashes, exits non-zero without a counted failure, overruns its time limit or runs zero tests adds
// one failure, so the totals never say "0 failed" while the exit code says otherwise. Every suite runs even after
// one fails (e2e excepted when the build failed: there is nothing to test then), each streams its own output, and
// the very last line printed is exactly `N passed, N failed`. Exit code 1 when anything failed.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = join(ROOT, 'node_modules', '.bin');
const REPORTS = join(ROOT, '.cache', 'reports');
const VITEST_REPORT = join(REPORTS, 'vitest.json');
/** Must match E2E_JSON_REPORT in playwright.config.ts. */
const PLAYWRIGHT_REPORT = join(REPORTS, 'playwright.json');
const MINUTE = 60_000;
/** Debian's interpreter, which sees Debian's python3-websockets (.ci/run installs it); a pyenv `python3` may not. */
const PYTHON = process.env.SQLENV_PYTHON ?? (existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3');

/**
 * @typedef {{ passed: number, failed: number, skipped: number, notes: string[] }} Counts
 * @typedef {{ name: string, command: string[], timeoutMs: number, count: (code: number | null, output: string) => Counts,
 *             before?: () => void, needs?: string, env?: Record<string, string>, captureOutput?: boolean }} Suite
 */

/** @type {Suite[]} */
const SUITES = [
  { name: 'lint', command: [join(BIN, 'eslint'), '.'], timeoutMs: 10 * MINUTE, count: stepCounts },
  { name: 'typecheck', command: [join(BIN, 'tsc'), '--noEmit', '-p', '.'], timeoutMs: 10 * MINUTE, count: stepCounts },
  {
    name: 'unit',
    command: [join(BIN, 'vitest'), 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${VITEST_REPORT}`],
    timeoutMs: 45 * MINUTE,
    before: () => rmSync(VITEST_REPORT, { force: true }),
    count: vitestCounts,
  },
  {
    name: 'python',
    command: [PYTHON, '-m', 'unittest', 'discover', '-s', 'python/tests', '-v'],
    timeoutMs: 10 * MINUTE,
    env: { PYTHONDONTWRITEBYTECODE: '1' },
    captureOutput: true,
    count: unittestCounts,
  },
  {
    name: 'build',
    command: ['npm', 'run', '--silent', 'build'],
    timeoutMs: 15 * MINUTE,
    // A failed build must not leave an old dist/ behind for e2e to test.
    before: () => rmSync(join(ROOT, 'dist'), { recursive: true, force: true }),
    count: stepCounts,
  },
  {
    name: 'e2e',
    command: [join(BIN, 'playwright'), 'test'],
    timeoutMs: 50 * MINUTE,
    needs: 'build',
    before: () => rmSync(PLAYWRIGHT_REPORT, { force: true }),
    count: playwrightCounts,
  },
];

/** A suite that is one test: its exit code decides. */
function stepCounts(code) {
  return code === 0 ? counts(1, 0) : counts(0, 1, [`exited with code ${code}`]);
}

/** Vitest's JSON report (Jest's shape). A test file that fails to load has no tests but a failed status. */
function vitestCounts(code) {
  const report = readJson(VITEST_REPORT);
  if (!report) return counts(0, 1, [`no JSON report at ${VITEST_REPORT} (exit code ${code})`]);
  const fileErrors = (report.testResults ?? []).filter(
    (file) => file.status === 'failed' && !(file.assertionResults ?? []).some((t) => t.status === 'failed'),
  );
  const notes = fileErrors.map((file) => `error in ${file.name.replace(`${ROOT}/`, '')}: ${firstLine(file.message)}`);
  const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  return withExitCode(counts(report.numPassedTests ?? 0, (report.numFailedTests ?? 0) + fileErrors.length, notes, skipped), code);
}

/** Playwright's JSON report: `stats` counts tests; `errors` holds failures outside tests (config, web server). */
function playwrightCounts(code) {
  const report = readJson(PLAYWRIGHT_REPORT);
  if (!report) return counts(0, 1, [`no JSON report at ${PLAYWRIGHT_REPORT} (exit code ${code})`]);
  const stats = report.stats ?? {};
  const errors = report.errors ?? [];
  const notes = errors.map((e) => `error: ${firstLine(e.message)}`);
  if (stats.flaky) notes.push(`${stats.flaky} flaky (passed on retry)`);
  const passed = (stats.expected ?? 0) + (stats.flaky ?? 0);
  return withExitCode(counts(passed, (stats.unexpected ?? 0) + (stats.interrupted ?? 0) + errors.length, notes, stats.skipped ?? 0), code);
}

/**
 * unittest's summary, on stderr: `Ran N tests in T s`, then `OK`, `OK (skipped=S)` or `FAILED (failures=F, errors=E,
 * skipped=S, expected failures=X, unexpected successes=U)`. Errors include a test module that fails to import and a
 * failing setUpClass. Failing sub-tests each add a failure, so passed is clamped at zero.
 */
function unittestCounts(code, output) {
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

function counts(passed, failed, notes = [], skipped = 0) {
  return { passed, failed, skipped, notes };
}

function readJson(path) {
  if (!existsSync(path)) return null;
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return null;
  }
}

function firstLine(text) {
  // Strip ANSI colour codes, keep the first non-empty line.
  // eslint-disable-next-line no-control-regex
  const plain = String(text ?? '').replace(/\u001b\[[0-9;]*m/g, '');
  return plain.split('\n').find((line) => line.trim() !== '')?.trim() ?? '(no message)';
}

/** The child currently running, so Ctrl-C can stop its whole process group. */
let current = null;
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    if (current) killGroup(current, signal);
    process.exit(130);
  });
}

function killGroup(child, signal) {
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

/**
 * Runs a command with inherited stdio (its output streams as it comes); resolves to its exit code, null if killed.
 * With `captureOutput`, stdout and stderr still stream to ours and are also kept, for suites counted from their text.
 */
function run(command, timeoutMs, { env = {}, captureOutput = false } = {}) {
  return new Promise((resolvePromise) => {
    const [file, ...args] = command;
    const stdio = captureOutput ? ['inherit', 'pipe', 'pipe'] : 'inherit';
    const child = spawn(file, args, { cwd: ROOT, stdio, detached: true, env: { ...process.env, ...env } });
    current = child;
    const chunks = [];
    if (captureOutput) {
      const keep = (stream) => (chunk) => {
        chunks.push(chunk);
        stream.write(chunk);
      };
      child.stdout.on('data', keep(process.stdout));
      child.stderr.on('data', keep(process.stderr));
    }
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child, 'SIGTERM');
      setTimeout(() => killGroup(child, 'SIGKILL'), 10_000).unref();
    }, timeoutMs);
    child.on('error', (error) => {
      console.error(`test-all: could not start ${file}: ${error.message}`);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      current = null;
      resolvePromise({ code: timedOut ? null : code ?? 1, timedOut, output: Buffer.concat(chunks).toString('utf8') });
    });
  });
}

function banner(text) {
  console.log(`\n${'='.repeat(8)} ${text} ${'='.repeat(Math.max(8, 72 - text.length))}`);
}

function seconds(ms) {
  return `${(ms / 1000).toFixed(1)} s`;
}

mkdirSync(REPORTS, { recursive: true });
const results = [];
const started = performance.now();
for (const suite of SUITES) {
  const needed = suite.needs && results.find((r) => r.name === suite.needs);
  if (needed && needed.failed > 0) {
    banner(`${suite.name}: not run`);
    results.push({ name: suite.name, ...counts(0, 1, [`not run: ${suite.needs} failed`]), ms: 0 });
    continue;
  }
  banner(`${suite.name}: ${suite.command.map((part) => part.replace(`${BIN}/`, '')).join(' ')}`);
  suite.before?.();
  const t0 = performance.now();
  const { code, timedOut, output } = await run(suite.command, suite.timeoutMs, suite);
  const ms = performance.now() - t0;
  const result = timedOut ? counts(0, 1, [`stopped after its time limit of ${seconds(suite.timeoutMs)}`]) : suite.count(code, output);
  results.push({ name: suite.name, ...result, ms });
  console.log(`-- ${suite.name}: ${result.passed} passed, ${result.failed} failed${result.skipped ? `, ${result.skipped} skipped` : ''} (${seconds(ms)})`);
}

banner('summary');
const width = Math.max(...results.map((r) => r.name.length));
for (const r of results) {
  const status = r.failed > 0 ? 'FAIL' : 'ok  ';
  const skipped = r.skipped ? `, ${r.skipped} skipped` : '';
  console.log(`${status} ${r.name.padEnd(width)}  ${r.passed} passed, ${r.failed} failed${skipped}  (${seconds(r.ms)})`);
  for (const note of r.notes) console.log(`     ${' '.repeat(width)}  ${note}`);
}
const passed = results.reduce((sum, r) => sum + r.passed, 0);
const failed = results.reduce((sum, r) => sum + r.failed, 0);
console.log(`total time ${seconds(performance.now() - started)}`);
console.log(`${passed} passed, ${failed} failed`);
process.exitCode = failed > 0 ? 1 : 0;
