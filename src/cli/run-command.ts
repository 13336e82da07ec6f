/**
 * `sqlenv run`: plays one episode with actions read from stdin, one per line, and writes one JSON line per step
 * (`{observation, reward, done, info}`). The first observation (the question) goes to stderr as text. The action
 * echoed in `info.action` is clipped to VALUE_LIMITS.transcriptActionChars per field (a 10 MB action line must not
 * come back as a 10 MB output line).
 */
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { DATASET_NAMES, loadNodeDataset } from '../data/load-node.ts';
import { SqlEnv } from '../env/env.ts';
import { clipText } from '../env/result-view.ts';
import type { StepResult } from '../env/types.ts';
import { VALUE_LIMITS } from '../sql/limits.ts';
import { createNodeSqlExecutor } from '../sql/node-worker.ts';
import { choice, integer, toJson, UsageError } from './args.ts';

export const RUN_USAGE = 'sqlenv run --dataset demo|spider (--question ID | --db DB_ID [--seed S])  < actions.txt';

/** The step result as written to stdout: every text field of the echoed action clipped. */
export function echoedStep(result: StepResult): StepResult {
  const clipped = Object.fromEntries(Object.entries(result.info.action).map(([k, v]) => [k, typeof v === 'string' ? clipText(v, VALUE_LIMITS.transcriptActionChars) : v]));
  return { ...result, info: { ...result.info, action: clipped as typeof result.info.action } };
}

export async function runCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { dataset: { type: 'string' }, question: { type: 'string' }, db: { type: 'string' }, seed: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(`Usage: ${RUN_USAGE}\n`);
    return 0;
  }
  const datasetName = choice('dataset', values.dataset, DATASET_NAMES, 'demo');
  if ((values.question === undefined) === (values.db === undefined)) throw new UsageError('Give exactly one of --question ID or --db DB_ID.');
  if (values.question !== undefined && values.seed !== undefined) throw new UsageError('--seed goes with --db, not with --question.');
  const seed = integer('seed', values.seed, 0);

  const executor = createNodeSqlExecutor();
  try {
    const dataset = await loadNodeDataset(datasetName, executor);
    if (values.db !== undefined && !dataset.databases.some((d) => d.id === values.db)) {
      throw new UsageError(`Dataset '${dataset.name}' has no database '${values.db}'. Databases: ${dataset.databases.map((d) => d.id).join(', ')}.`);
    }
    const env = new SqlEnv(dataset, executor);
    const reset = values.question !== undefined ? await env.reset({ questionId: values.question }) : await env.reset({ dbId: values.db, split: 'all', seed });
    process.stderr.write(`${reset.observation.text}\n`);
    let done = false;
    let ignored = 0;
    for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
      if (line.trim() === '') continue;
      if (done) {
        ignored++;
        continue;
      }
      const result = await env.step(line);
      process.stdout.write(`${toJson(echoedStep(result))}\n`);
      done = result.done;
    }
    if (ignored > 0) process.stderr.write(`The episode had ended; ${ignored} further action line(s) ignored.\n`);
    if (!done) process.stderr.write('Input ended before the episode did (no ANSWER and steps left).\n');
    return 0;
  } finally {
    await executor.close();
  }
}
