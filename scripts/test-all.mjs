#!/usr/bin/env node
// `npm test`: every suite of the project, in order — lint, typecheck, unit (Vitest), python (unittest: the Python
// client in python/ against a real `sqlenv serve`), python-types (mypy --strict over the client), build, e2e
// (Playwright).
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
import { counts, playwrightCounts, stepCounts, unittestCounts, vitestCounts } from './test-counts.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = join(ROOT, 'node_modules', '.bin');
const REPORTS = join(ROOT, '.cache', 'reports');
const VITEST_REPORT = join(REPORTS, 'vitest.json');
/** Must match E2E_JSON_REPORT in playwright.config.ts. */
const PLAYWRIGHT_REPORT = join(REPORTS, 'playwright.json');
const MINUTE = 60_000;
/** Debian's interpreter, which sees Debian's python3-websockets (.ci/run installs it); a pyenv `python3` may not. */
const PYTHON = process.env.SQLENV_PYTHON ?? (existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3');
/** Debian's mypy, which checks against Debian's python3 packages (websockets, pydantic). */
const MYPY = existsSync('/usr/bin/mypy') ? '/usr/bin/mypy' : 'mypy';

/**
 * @typedef {import('./test-counts.mjs').Counts} Counts
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
    count: (code) => vitestCounts(readJson(VITEST_REPORT), code, ROOT),
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
    // The client's types, strict, with Debian's mypy (scripts/ensure-python-websockets.sh installs it): the settings
    // live in python/pyproject.toml, and py.typed ships them to the client's users.
    name: 'python-types',
    command: [MYPY, '--config-file', 'python/pyproject.toml', 'python/sqlenv_client'],
    timeoutMs: 5 * MINUTE,
    count: stepCounts,
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
    count: (code) => playwrightCounts(readJson(PLAYWRIGHT_REPORT), code),
  },
];

/** A JSON report, or null when it is missing or unreadable (the suite then counts one failure). */
function readJson(path) {
  if (!existsSync(path)) return null;
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return null;
  }
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
