/**
 * What `sqlenv` prints around an argument error: the failing command's usage alone (not every command's), the
 * overview only for `sqlenv --help`, and `sqlenv <command> --help` answering with that command's usage. main() runs
 * in-process with stdout and stderr captured; the usage lines come from the command modules themselves.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { COMPARE_USAGE } from '../../src/cli/compare-command.ts';
import { EVAL_USAGE } from '../../src/cli/eval-command.ts';
import { EXEC_MATCH_USAGE } from '../../src/cli/exec-match-command.ts';
import { EXPLAIN_USAGE } from '../../src/cli/explain-command.ts';
import { EXPORT_USAGE } from '../../src/cli/export-command.ts';
import { LOGITS_USAGE } from '../../src/cli/logits-command.ts';
import { main } from '../../src/cli/main.ts';
import { RUN_USAGE } from '../../src/cli/run-command.ts';
import { SERVE_USAGE } from '../../src/cli/serve-command.ts';
import { TRAIN_USAGE } from '../../src/cli/train-command.ts';

const ALL_USAGES = { eval: EVAL_USAGE, compare: COMPARE_USAGE, run: RUN_USAGE, 'exec-match': EXEC_MATCH_USAGE, export: EXPORT_USAGE, serve: SERVE_USAGE, logits: LOGITS_USAGE, train: TRAIN_USAGE, explain: EXPLAIN_USAGE };

let stdout = '';
let stderr = '';
beforeEach(() => {
  stdout = '';
  stderr = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => ((stdout += String(chunk)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => ((stderr += String(chunk)), true));
});
afterEach(() => vi.restoreAllMocks());

/** The commands whose usage appears in `text`. */
function usagesIn(text: string): string[] {
  return Object.entries(ALL_USAGES).filter(([, usage]) => text.includes(usage)).map(([name]) => name);
}

describe('sqlenv argument errors', () => {
  it.each([
    ['eval', ['--policy', 'smart'], /sqlenv eval: --policy must be one of random\|oracle/],
    ['eval', ['--policy', 'oracle', '--bogus'], /sqlenv eval: Unknown option '--bogus'/],
    ['compare', ['only-one.jsonl'], /sqlenv compare: /],
    ['run', ['--dataset', 'demo'], /sqlenv run: /],
    ['export', ['--format', 'csv'], /sqlenv export: --format must be one of prompts\|sft/],
    ['logits', ['--ids', '1,2'], /sqlenv logits: /],
    ['explain', ['--episode', '1'], /sqlenv explain: /],
  ])('%s %j prints the error and that command\'s usage only', async (name, args, message) => {
    const code = await main([name, ...args]);
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
    expect(usagesIn(stderr)).toEqual([name]);
    expect(stderr).toContain("Run 'sqlenv --help' for every command.");
    expect(stdout).toBe('');
  });

  it('an unknown command names the commands, without every usage', async () => {
    expect(await main(['frobnicate'])).toBe(2);
    expect(stderr).toMatch(/unknown command 'frobnicate'\. Commands: eval, compare, run, exec-match, export, serve, logits, train, explain\./);
    expect(usagesIn(stderr)).toEqual([]);
  });
});

describe('sqlenv help', () => {
  it('--help prints every command\'s usage on stdout, exit 0; no arguments the same with exit 2', async () => {
    expect(await main(['--help'])).toBe(0);
    expect(usagesIn(stdout).sort()).toEqual(Object.keys(ALL_USAGES).sort());
    stdout = '';
    expect(await main([])).toBe(2);
    expect(usagesIn(stdout)).toHaveLength(Object.keys(ALL_USAGES).length);
  });

  it.each(['eval', 'compare', 'logits', 'export', 'exec-match'])('%s --help prints that command\'s usage, exit 0', async (name) => {
    expect(await main([name, '--help'])).toBe(0);
    expect(usagesIn(stdout)).toEqual([name]);
    expect(stderr).toBe('');
  });
});

describe('commands with a help of their own', () => {
  it('serve --help keeps its flag descriptions (more than the usage line)', async () => {
    expect(await main(['serve', '--help'])).toBe(0);
    expect(stdout).toContain(SERVE_USAGE);
    expect(stdout).toMatch(/--allow-origin ORIGIN\s+let pages from ORIGIN/);
  });
});
