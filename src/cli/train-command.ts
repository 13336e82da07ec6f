/**
 * `sqlenv train`: SFT or GRPO of a LoRA adapter on a model folder, on the Node WebGPU engine, by the page's own
 * TrainService (src/workers/train-service.ts) with a folder for its store (file-train-store.ts): one JSON line of
 * `StepMetrics` per step on stdout, phases, evaluations, traces and checkpoints on stderr, checkpoints (adapter,
 * AdamW moments, history) into --out every --checkpoint-every steps, and the adapter as PEFT files
 * (adapter_model.safetensors, adapter_config.json, README.md) into --out when the run ends (or is stopped with Ctrl-C).
 *
 * `--resume` continues the run in --out from its newest checkpoint, exactly as if it had not stopped (the trainer
 * derives every random choice and the AdamW step from the step number); `--steps N` with it extends the run to N
 * steps. Other settings cannot change on resume: the checkpoint's win. `--init-adapter DIR` starts a new run from a
 * PEFT adapter (an SFT warm-up before GRPO, say); its rank, alpha and targets win over --lora-*, as in the Train view.
 */
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { DATASET_NAMES, loadNodeDataset, type DatasetName } from '../data/load-node.ts';
import type { Dataset } from '../data/types.ts';
import { createNodeSqlExecutor } from '../sql/node-worker.ts';
import { AdapterLibrary } from '../workers/adapter-library.ts';
import type { StepMetrics } from '../train/types.ts';
import type { TrainEvent } from '../workers/train-protocol.ts';
import { TrainService } from '../workers/train-service.ts';
import { choice, CliError, integer, UsageError } from './args.ts';
import { FileTrainStore, INIT_ADAPTER_ID } from './file-train-store.ts';
import { nodeTrainBase, readAdapterFolder, readModelFolder } from './node-model.ts';
import { buildTrainConfig, flagName, TRAIN_CONFIG_OPTIONS, trainConfigOverrides, trainFlagsHelp } from './train-flags.ts';

export const TRAIN_USAGE =
  'sqlenv train --algo sft|grpo --model DIR --dataset demo|spider --out DIR [--steps N] [--seed S] [--init-adapter DIR] [--resume] [--<setting> V …] (sqlenv train --help lists the settings)';

/** What the step metrics' JSON lines hold, for --help: SFT's success rate and reward are the demonstrations'. */
export const TRAIN_OUTPUT_HELP =
  "Output: one JSON line of step metrics per step on stdout (under SFT, successRate and reward are the Oracle demonstrations' it learns from, not the model's: the model's own success shows at evaluations, --eval-every); a readable line per step, phases, evaluations, traces and checkpoints on stderr.";

/** A step's readable line (stderr), saying whose success rate it is: the model's episodes (GRPO) or the Oracle's demonstrations (SFT). */
export function stepLine(m: StepMetrics): string {
  const common = `step ${m.step} (${m.algo}): loss ${m.loss.toFixed(4)}, grad norm ${m.gradNorm.toFixed(3)}, lr ${m.lr.toPrecision(3)}`;
  const tail = `${m.seconds.total.toFixed(1)} s, about ${Math.round(m.etaSeconds)} s left`;
  switch (m.algo) {
    case 'sft':
      return `${common}; demonstrations' success rate ${m.successRate.toFixed(3)} (the Oracle transcripts it learns from, not the model's); ${tail}`;
    case 'grpo':
      return `${common}; the model's success rate ${m.successRate.toFixed(3)} over the step's episodes, mean reward ${m.reward.total.toFixed(3)}; ${tail}`;
    default:
      return m.algo satisfies never;
  }
}

/** Writes a run's events: step metrics as JSON lines on stdout, the rest as text on stderr; keeps the error. */
function eventWriter(): { onEvent: (e: TrainEvent) => void; error: () => string | null } {
  let error: string | null = null;
  const onEvent = (e: TrainEvent): void => {
    switch (e.type) {
      case 'step':
        process.stdout.write(`${JSON.stringify(e.metrics)}\n`);
        process.stderr.write(`${stepLine(e.metrics)}\n`);
        break;
      case 'phase':
        process.stderr.write(`[${e.phase}]${e.message ? ` ${e.message}` : ''}\n`);
        break;
      case 'eval':
        process.stderr.write(`eval at step ${e.point.step}: train success ${e.point.trainSuccess.toFixed(3)}, eval success ${e.point.evalSuccess.toFixed(3)}\n`);
        break;
      case 'trace':
        process.stderr.write(`trace at step ${e.trace.step} (${e.trace.questionId}): ${e.trace.actions.map((a) => a.action).join(' | ')} → reward ${e.trace.reward.toFixed(3)}\n`);
        break;
      case 'checkpoint':
        process.stderr.write(`checkpoint ${e.checkpoint.id} (step ${e.checkpoint.step}/${e.checkpoint.totalSteps})\n`);
        break;
      case 'progress':
        break; // the page's progress bar; the CLI prints every step
      case 'error':
        error = e.message + (e.suggestion ? ` Try: ${Object.entries(e.suggestion).map(([k, v]) => `--${flagName(k)} ${typeof v === 'number' ? v : JSON.stringify(v)}`).join(' ')}.` : '');
        process.stderr.write(`error: ${error}\n`);
        break;
      default:
        return e satisfies never;
    }
  };
  return { onEvent, error: () => error };
}

export async function trainCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      algo: { type: 'string' },
      model: { type: 'string' },
      dataset: { type: 'string' },
      out: { type: 'string' },
      resume: { type: 'boolean', default: false },
      'init-adapter': { type: 'string' },
      help: { type: 'boolean', default: false },
      ...TRAIN_CONFIG_OPTIONS,
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(`${TRAIN_USAGE}\n${TRAIN_OUTPUT_HELP}\nSettings, by the Train view's groups (GRPO only / SFT only: used by that algorithm alone):\n${trainFlagsHelp()}\n`);
    return 0;
  }
  if (!values.model) throw new UsageError('--model DIR is required (a Hugging Face model folder).');
  if (!values.out) throw new UsageError('--out DIR is required (checkpoints and the adapter go there).');
  const overrides = trainConfigOverrides(values);
  const initAdapter = values['init-adapter'];
  if (initAdapter === '') throw new UsageError('--init-adapter needs a PEFT adapter folder.');
  if (initAdapter !== undefined && values.resume) throw new UsageError('--init-adapter starts a new run; a resumed run continues from its checkpoint.');

  const folder = new FileTrainStore(values.out);

  let start: { kind: 'new'; config: ReturnType<typeof buildTrainConfig>; dataset: DatasetName } | { kind: 'resume'; checkpointId: string; dataset: DatasetName };
  if (values.resume) {
    const fixed = Object.keys(overrides).filter((k) => k !== 'steps');
    if (fixed.length > 0) throw new UsageError(`--${flagName(fixed[0])} cannot change when resuming: the run continues with its checkpoint's settings (only --steps may extend it).`);
    const newest = (await folder.listCheckpoints()).sort((a, b) => b.step - a.step)[0];
    if (!newest) throw new CliError(`No checkpoint in ${values.out} to resume from (a run saves one every --checkpoint-every steps).`);
    if (values.algo !== undefined && values.algo !== newest.config.algo) throw new UsageError(`--algo ${values.algo}: the run in ${values.out} is ${newest.config.algo}.`);
    if (values.dataset !== undefined && values.dataset !== newest.dataset) throw new UsageError(`--dataset ${values.dataset}: the run in ${values.out} trains on ${newest.dataset}.`);
    if (overrides.steps !== undefined) {
      const steps = integer('steps', String(overrides.steps), 0, newest.step);
      if (steps !== newest.totalSteps) await folder.extendCheckpoint(newest.id, steps);
    }
    start = { kind: 'resume', checkpointId: newest.id, dataset: choice('dataset', newest.dataset, DATASET_NAMES) };
  } else {
    const config = buildTrainConfig(values.algo, overrides);
    const dataset = choice('dataset', values.dataset, DATASET_NAMES);
    if ((await folder.listCheckpoints()).length > 0 || (await folder.listAdapters()).length > 0) {
      throw new UsageError(`${values.out} already holds a run (checkpoints or an adapter): continue it with --resume, or choose another --out.`);
    }
    start = { kind: 'new', config, dataset };
  }

  process.stderr.write(`Reading ${values.model}…\n`);
  const model = await readModelFolder(values.model);
  if (initAdapter !== undefined) await readAdapterFolder(initAdapter, model.config); // refused now (exit 1), not once the run has started
  const store = new FileTrainStore(values.out, initAdapter === undefined ? {} : { initAdapter: { dir: initAdapter, modelConfig: model.config } });
  const executor = createNodeSqlExecutor();
  let dataset: Dataset;
  try {
    dataset = await loadNodeDataset(start.dataset, executor);
  } finally {
    await executor.close();
  }
  const base = nodeTrainBase(model, 'f16');
  const service = new TrainService({
    store,
    adapters: new AdapterLibrary(store, () => undefined),
    base: () => base,
    dataset: async () => dataset,
    createExecutor: () => createNodeSqlExecutor(),
  });
  const events = eventWriter();
  const stop = (): void => {
    process.stderr.write('Stopping after the step in progress (the adapter is kept)…\n');
    service.stop();
  };
  process.once('SIGINT', stop);
  try {
    if (start.kind === 'new') {
      await service.start({ dataset: start.dataset, config: start.config, adapterName: basename(values.out), ...(initAdapter !== undefined && { initAdapterId: INIT_ADAPTER_ID }) }, events.onEvent);
    }
    else await service.resume(start.checkpointId, events.onEvent);
  } finally {
    process.off('SIGINT', stop);
  }
  const error = events.error();
  if (error !== null) throw new CliError(error);
  process.stderr.write(`Adapter written to ${values.out} (adapter_model.safetensors, adapter_config.json, README.md).\n`);
  return 0;
}
