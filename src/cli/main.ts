/**
 * The `sqlenv` command line: `eval`, `compare` (two run files), `run`, `exec-match`, `export` (TRL datasets), `serve`
 * (the OpenEnv server), and the model commands on the Node WebGPU engine: `logits`, `train` (and `eval --policy qwen`),
 * `explain` (what a LoRA adapter changed in a run's replies).
 * Exit codes: 0 ok, 1 failure (bad dataset, I/O), 2 bad arguments.
 */
import { DatasetError } from '../data/bundle.ts';
import { EnvUsageError } from '../env/env.ts';
import { NonFiniteLogitsError } from '../model/top-logits.ts';
import { CliError, UsageError } from './args.ts';
import { COMPARE_USAGE, compareCommand } from './compare-command.ts';
import { EVAL_USAGE, evalCommand } from './eval-command.ts';
import { EXEC_MATCH_USAGE, execMatchCommand } from './exec-match-command.ts';
import { EXPLAIN_USAGE, explainCommand } from './explain-command.ts';
import { EXPORT_USAGE, exportCommand } from './export-command.ts';
import { LOGITS_USAGE, logitsCommand } from './logits-command.ts';
import { RUN_USAGE, runCommand } from './run-command.ts';
import { SERVE_USAGE, serveCommand } from './serve-command.ts';
import { TRAIN_USAGE, trainCommand } from './train-command.ts';

interface Command {
  run: (argv: string[]) => Promise<number>;
  /** The command's own usage line(s), printed under its argument errors and by `sqlenv <command> --help`. */
  usage: string;
  /** The command answers `--help` itself (serve explains its flags, train lists its settings). */
  ownHelp?: true;
}

/** Every command, in the order `sqlenv --help` lists them. */
const COMMANDS: Record<string, Command> = {
  eval: { run: evalCommand, usage: EVAL_USAGE },
  compare: { run: compareCommand, usage: COMPARE_USAGE },
  run: { run: runCommand, usage: RUN_USAGE, ownHelp: true },
  'exec-match': { run: execMatchCommand, usage: EXEC_MATCH_USAGE },
  export: { run: exportCommand, usage: EXPORT_USAGE },
  serve: { run: serveCommand, usage: SERVE_USAGE, ownHelp: true },
  logits: { run: logitsCommand, usage: LOGITS_USAGE },
  train: { run: trainCommand, usage: TRAIN_USAGE, ownHelp: true },
  explain: { run: explainCommand, usage: EXPLAIN_USAGE },
};

/** The overview `sqlenv --help` prints: every command's usage. */
export const USAGE = ['Usage:', ...Object.values(COMMANDS).map((c) => `  ${c.usage}`)].join('\n');

/**
 * What an argument error of one command prints under its message: that command's usage alone (the overview of all
 * nine would bury the one line that matters) and where the rest is.
 */
export function commandUsage(name: string): string {
  const command = COMMANDS[name];
  if (!command) return USAGE;
  return `Usage:\n  ${command.usage}\nRun 'sqlenv --help' for every command.`;
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return name === undefined ? 2 : 0;
  }
  const command = COMMANDS[name];
  if (!command) {
    process.stderr.write(`sqlenv: unknown command '${name}'. Commands: ${Object.keys(COMMANDS).join(', ')}.\nRun 'sqlenv --help' for their usage.\n`);
    return 2;
  }
  if (!command.ownHelp && (rest.includes('--help') || rest.includes('-h'))) {
    process.stdout.write(`${commandUsage(name)}\n`);
    return 0;
  }
  try {
    return await command.run(rest);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    // parseArgs reports unknown or malformed options with codes starting ERR_PARSE_ARGS.
    const isUsage = e instanceof UsageError || e instanceof EnvUsageError || (e instanceof Error && 'code' in e && String(e.code).startsWith('ERR_PARSE_ARGS'));
    if (isUsage) {
      process.stderr.write(`sqlenv ${name}: ${message}\n${commandUsage(name)}\n`);
      return 2;
    }
    process.stderr.write(`sqlenv ${name}: ${e instanceof DatasetError || e instanceof CliError || e instanceof NonFiniteLogitsError ? message : (e instanceof Error && e.stack) || message}\n`);
    return 1;
  }
}
