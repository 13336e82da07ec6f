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

const USAGE = ['Usage:', `  ${EVAL_USAGE}`, `  ${COMPARE_USAGE}`, `  ${RUN_USAGE}`, `  ${EXEC_MATCH_USAGE}`, `  ${EXPORT_USAGE}`, `  ${SERVE_USAGE}`, `  ${LOGITS_USAGE}`, `  ${TRAIN_USAGE}`, `  ${EXPLAIN_USAGE}`].join('\n');

const COMMANDS: Record<string, (argv: string[]) => Promise<number>> = {
  eval: evalCommand,
  compare: compareCommand,
  run: runCommand,
  'exec-match': execMatchCommand,
  export: exportCommand,
  serve: serveCommand,
  logits: logitsCommand,
  train: trainCommand,
  explain: explainCommand,
};

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return name === undefined ? 2 : 0;
  }
  const command = COMMANDS[name];
  if (!command) {
    process.stderr.write(`sqlenv: unknown command '${name}'.\n${USAGE}\n`);
    return 2;
  }
  try {
    return await command(rest);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    // parseArgs reports unknown or malformed options with codes starting ERR_PARSE_ARGS.
    const isUsage = e instanceof UsageError || e instanceof EnvUsageError || (e instanceof Error && 'code' in e && String(e.code).startsWith('ERR_PARSE_ARGS'));
    if (isUsage) {
      process.stderr.write(`sqlenv ${name}: ${message}\n${USAGE}\n`);
      return 2;
    }
    process.stderr.write(`sqlenv ${name}: ${e instanceof DatasetError || e instanceof CliError || e instanceof NonFiniteLogitsError ? message : (e instanceof Error && e.stack) || message}\n`);
    return 1;
  }
}
