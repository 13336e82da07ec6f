// `npm test`'s summary: counts per suite, and each failed test named with its error's first line, so that a CI log
// cut to its tail still says what failed (a submission once failed CI on a unit test the tail did not name).
import { describe, expect, it } from 'vitest';
import { playwrightCounts, unittestCounts, vitestCounts } from '../../scripts/test-counts.mjs';

const ROOT = '/repo';

describe('vitestCounts', () => {
  const report = {
    numPassedTests: 3,
    numFailedTests: 1,
    numPendingTests: 1,
    numTodoTests: 0,
    testResults: [
      {
        name: `${ROOT}/tests/a.test.ts`,
        status: 'failed',
        assertionResults: [
          { status: 'passed', fullName: 'a works', title: 'works' },
          { status: 'failed', fullName: 'a breaks', title: 'breaks', failureMessages: ['\u001b[31mAssertionError: expected 1 to be 2\u001b[39m\n    at a.test.ts:3'] },
        ],
      },
      { name: `${ROOT}/tests/b.test.ts`, status: 'failed', message: 'SyntaxError: bad import\nstack', assertionResults: [] },
      { name: `${ROOT}/tests/c.test.ts`, status: 'passed', assertionResults: [{ status: 'passed', fullName: 'c', title: 'c' }] },
    ],
  };

  it('counts failed tests and files that failed to load, and names each with its first error line', () => {
    const result = vitestCounts(report, 1, ROOT);
    expect(result).toMatchObject({ passed: 3, failed: 2, skipped: 1 });
    expect(result.notes).toEqual([
      'error in tests/b.test.ts: SyntaxError: bad import',
      'failed: tests/a.test.ts › a breaks: AssertionError: expected 1 to be 2',
    ]);
  });

  it('cuts a long error line to one line of the summary', () => {
    const long = { ...report, testResults: [{ ...report.testResults[0], assertionResults: [{ status: 'failed', fullName: 'x', failureMessages: ['e'.repeat(1000)] }] }] };
    const [note] = vitestCounts(long, 1, ROOT).notes;
    expect(note.length).toBeLessThan(300);
    expect(note.endsWith('…')).toBe(true);
  });

  it('a missing report or a non-zero exit with nothing failed counts one failure', () => {
    expect(vitestCounts(null, 1, ROOT)).toMatchObject({ passed: 0, failed: 1 });
    expect(vitestCounts({ numPassedTests: 2, testResults: [] }, 1, ROOT)).toMatchObject({ passed: 2, failed: 1 });
    expect(vitestCounts({ numPassedTests: 0, testResults: [] }, 0, ROOT)).toMatchObject({ passed: 0, failed: 1 });
  });
});

describe('playwrightCounts', () => {
  const test = (status: string, message?: string) => ({ status, results: [{ error: message ? { message } : undefined }] });
  const report = {
    stats: { expected: 2, unexpected: 1, flaky: 1, skipped: 0 },
    errors: [],
    suites: [
      {
        title: 'train.spec.ts',
        file: 'train.spec.ts',
        specs: [{ title: 'Start shows progress', file: 'train.spec.ts', tests: [test('unexpected', 'Error: expect(locator).toBeVisible() failed\n\nLocator: …')] }],
        suites: [
          {
            title: 'Stop',
            file: 'train.spec.ts',
            specs: [
              { title: 'stops at once', file: 'train.spec.ts', tests: [test('expected')] },
              { title: 'keeps the chart', file: 'train.spec.ts', tests: [test('flaky', 'Timeout')] },
            ],
          },
        ],
      },
      { title: 'gpu/device.spec.ts', file: 'gpu/device.spec.ts', specs: [{ title: 'device', file: 'gpu/device.spec.ts', tests: [test('expected')] }] },
    ],
  };

  it('counts flaky as passed, names each unexpected test with its describe titles and first error line', () => {
    const result = playwrightCounts(report, 1);
    expect(result).toMatchObject({ passed: 3, failed: 1 });
    expect(result.notes).toEqual([
      'failed: train.spec.ts › Start shows progress: Error: expect(locator).toBeVisible() failed',
      '1 flaky (passed on retry)',
    ]);
  });

  it('names a failure inside a describe block with its title', () => {
    const nested = structuredClone(report);
    const stopSpec = nested.suites[0]?.suites?.[0]?.specs[0];
    if (!stopSpec) throw new Error('the report above lost its nested suite');
    stopSpec.tests = [test('unexpected', 'Error: timed out')];
    expect(playwrightCounts(nested, 1).notes).toContain('failed: train.spec.ts › Stop › stops at once: Error: timed out');
  });
});

describe('unittestCounts', () => {
  it('reads unittest summary lines and names the failures', () => {
    const output = 'FAIL: test_x (tests.test_a.T)\n----\nRan 5 tests in 1.0s\n\nFAILED (failures=1, errors=1, skipped=1)\n';
    expect(unittestCounts(1, output)).toEqual({ passed: 2, failed: 2, skipped: 1, notes: ['failed: test_x (tests.test_a.T)'] });
  });
});
