/**
 * The Train view's toy task "learn to read", in the environment worker: the reads run of src/train/toy-reads-run.ts
 * (`setupReadsTask` with the run seed, then `runReads`: SFT warm-up on Oracle transcripts of some databases, GRPO on
 * others under the environment's default reward weights, fresh success measured before and after GRPO on databases
 * no update saw) on a tiny model the worker builds itself — no loaded model, no download. Everything the run does is
 * runReads'; this file only sizes it (`ReadsStartRequest`), hosts it and turns its callbacks into `ReadsEvent`s:
 *
 *   phase loading ("Building …") → stage sft → step… → (control measured) → stage grpo → eval/step/trace… →
 *   (after measured) → readsResult → phase finished
 *
 * Stop: runReads makes its own trainers, so the run is stopped through its model instead (`stoppableModel`): every
 * model call after a stop rejects with `ReadsStopped`, and a decode under way gets the stop's signal, so a stop takes
 * hold within one decode step or pass, as a training run's does. Pause is not offered. Nothing of the run is kept: no
 * checkpoint, no adapter (the toy model's vocabulary is the toy tokenizer's, so its adapter fits no other model).
 *
 * The model comes from the host (`ReadsTaskHost`): the WebGPU model in the worker (train-gpu-model.ts), the float64
 * reference in Node tests.
 */
import type { SqlJsStatic } from 'sql.js';
import { READS_DATABASES, READS_GRPO, READS_SFT, runReads, setupReadsTask, type ReadsMeasure, type ReadsSetup } from '../train/toy-reads-run.ts';
import { fixedAnswerCeiling } from '../train/toy-reads-task.ts';
import { TOY_ADAPTER_SEED, TOY_CONTEXT_TOKENS, TOY_LORA, TOY_MODEL } from '../train/toy-run.ts';
import type { TrainerCallbacks } from '../train/trainer.ts';
import { DEFAULT_TRAIN_CONFIG, type TrainAlgo } from '../train/types.ts';
import type { ReadsDefaults, ReadsEvent, ReadsFreshMeasure, ReadsStartRequest, TrainPhase } from './train-protocol.ts';
import type { TrainModelRequest, TrainSession, TrainSessionModel } from './train-session.ts';

/** What the worker gives the toy run: sql.js (to build its databases) and a trainable model of the toy's size. */
export interface ReadsTaskHost {
  sql(): Promise<SqlJsStatic>;
  createSession(setup: ReadsSetup, request: TrainModelRequest): Promise<TrainSession>;
}

/** Greedy fresh episodes of the GRPO curve's evaluation after every step (the "eval" line of the success chart). */
export const READS_CURVE_SAMPLES = 25;

/** Accepted sizes (a person types them): enough for a long run, bounded so a typo allocates nothing huge. */
export const READS_LIMITS = {
  sftSteps: { min: 1, max: 5000 },
  grpoSteps: { min: 1, max: 1000 },
  sftDatabases: { min: 1, max: 400 },
  grpoDatabases: { min: 1, max: 400 },
  freshDatabases: { min: 1, max: 400 },
} as const;

const READS_FIELD_LABELS: Record<keyof typeof READS_LIMITS, string> = {
  sftSteps: 'SFT steps',
  grpoSteps: 'GRPO steps',
  sftDatabases: 'SFT databases',
  grpoDatabases: 'GRPO databases',
  freshDatabases: 'Fresh databases',
};

/** The run's own sizes (toy-reads-run.ts). */
export function readsSizes(): Omit<ReadsDefaults, 'ceiling' | 'model'> {
  return { sftSteps: READS_SFT.steps ?? DEFAULT_TRAIN_CONFIG.steps, grpoSteps: READS_GRPO.steps ?? DEFAULT_TRAIN_CONFIG.steps, sftDatabases: READS_DATABASES.sft, grpoDatabases: READS_DATABASES.grpo, freshDatabases: READS_DATABASES.fresh };
}

/** The run's own sizes and the exact fixed-answer ceiling (an enumeration: about a second). */
export function readsDefaults(): ReadsDefaults {
  return { ...readsSizes(), ceiling: fixedAnswerCeiling().rate, model: `${TOY_MODEL.numLayers} layers, hidden ${TOY_MODEL.hiddenSize}` };
}

/** The request with every size filled in; a size or seed out of range is a RangeError naming it. */
export function resolveReadsRequest(request: ReadsStartRequest, defaults: Omit<ReadsDefaults, 'ceiling' | 'model'>): Required<ReadsStartRequest> {
  if (!Number.isSafeInteger(request.runSeed) || request.runSeed < 0) throw new RangeError(`Run seed must be a whole number ≥ 0 (got ${request.runSeed}).`);
  const size = (key: keyof typeof READS_LIMITS): number => {
    const value = request[key] ?? defaults[key];
    const { min, max } = READS_LIMITS[key];
    if (!Number.isInteger(value) || value < min || value > max) throw new RangeError(`${READS_FIELD_LABELS[key]} must be a whole number from ${min} to ${max} (got ${value}).`);
    return value;
  };
  return { runSeed: request.runSeed, sftSteps: size('sftSteps'), grpoSteps: size('grpoSteps'), sftDatabases: size('sftDatabases'), grpoDatabases: size('grpoDatabases'), freshDatabases: size('freshDatabases') };
}

/** Why the toy run's model refused a call: the run was stopped. */
export class ReadsStopped extends Error {
  override name = 'ReadsStopped';
  constructor() {
    super('The toy run was stopped.');
  }
}

/**
 * `model` with every call refused once `signal` is aborted, and the signal joined to each decode's own (so a decode
 * under way ends within one step). The trainers treat the refusal as a failure and end; the caller reads the signal.
 */
export function stoppableModel(model: TrainSessionModel, signal: AbortSignal): TrainSessionModel {
  const check = () => signal.throwIfAborted();
  return {
    get tokenizer() {
      return model.tokenizer;
    },
    get contextTokens() {
      return model.contextTokens;
    },
    get microBatchLimits() {
      return model.microBatchLimits;
    },
    generate: async (requests, options = {}) => {
      check();
      return model.generate(requests, { ...options, signal: options.signal ? AbortSignal.any([options.signal, signal]) : signal });
    },
    forward: async (batch, options) => (check(), model.forward(batch, options)),
    backward: async (dlogprob) => (check(), model.backward(dlogprob)),
    optimizerStep: async (settings) => (check(), model.optimizerStep(settings)),
    gpuBytes: () => model.gpuBytes?.() ?? null,
    setReferenceAdapter: (adapter) => model.setReferenceAdapter?.(adapter),
    readAdapter: async () => (check(), model.readAdapter()),
    loadAdapter: (adapter) => (check(), model.loadAdapter(adapter)),
    readOptimizerState: async () => (check(), model.readOptimizerState()),
    loadOptimizerState: (state) => (check(), model.loadOptimizerState(state)),
  };
}

const plain = (m: ReadsMeasure): ReadsFreshMeasure => ({ success: m.success, copied: m.copied, answered: m.answered, episodes: m.episodes });

/**
 * One toy run. `run` resolves when it has ended (finished, stopped or failed: each said by events, never thrown);
 * `stop` may come at any time.
 */
export class ReadsRun {
  private readonly abort = new AbortController();
  private stageValue: TrainAlgo | null = null;
  private stepValue = 0;
  private phaseValue: TrainPhase = 'loading';
  private readonly request: Required<ReadsStartRequest>;

  constructor(
    private readonly host: ReadsTaskHost,
    request: Required<ReadsStartRequest>,
    private readonly emit: (e: ReadsEvent) => void,
    /** Called before the model is made (the worker frees its inference engine's GPU memory). */
    private readonly beforeSession?: () => void,
  ) {
    this.request = request;
  }

  /** Every event goes out through here (the phase is kept for `TrainService.status`). */
  private send(e: ReadsEvent): void {
    if (e.type === 'phase') this.phaseValue = e.phase;
    this.emit(e);
  }

  get phase(): TrainPhase {
    return this.phaseValue;
  }

  get step(): number {
    return this.stepValue;
  }

  get totalSteps(): number {
    return this.stageValue === 'sft' ? this.request.sftSteps : this.request.grpoSteps;
  }

  get stopped(): boolean {
    return this.abort.signal.aborted;
  }

  stop(): void {
    if (!this.abort.signal.aborted) this.abort.abort(new ReadsStopped());
  }

  private enter(algo: TrainAlgo, message: string): void {
    if (this.stageValue === algo) return;
    this.stageValue = algo;
    this.stepValue = 0;
    this.send({ type: 'stage', algo, totalSteps: algo === 'sft' ? this.request.sftSteps : this.request.grpoSteps, message });
  }

  /** `evaluates`: the stage evaluates after its last step, so the measure starts after that evaluation. */
  private callbacks(algo: TrainAlgo, evaluates: boolean, stageMessage: string, lastStepMessage: string): TrainerCallbacks {
    const total = algo === 'sft' ? this.request.sftSteps : this.request.grpoSteps;
    return {
      onProgress: (progress) => {
        this.enter(algo, stageMessage);
        this.send({ type: 'progress', progress });
      },
      onStep: (metrics) => {
        this.enter(algo, stageMessage);
        this.stepValue = metrics.step;
        this.send({ type: 'step', metrics });
        // The measure that follows the stage's last step reports no progress of its own: say what it is doing.
        if (metrics.step === total && !evaluates) this.send({ type: 'phase', phase: 'running', message: lastStepMessage });
      },
      onEval: (point) => {
        this.enter(algo, stageMessage);
        this.send({ type: 'eval', point });
        if (point.step === total && evaluates) this.send({ type: 'phase', phase: 'running', message: lastStepMessage });
      },
      onTrace: (trace) => this.send({ type: 'trace', trace }),
    };
  }

  async run(): Promise<void> {
    const { runSeed, sftSteps, grpoSteps, sftDatabases, grpoDatabases, freshDatabases } = this.request;
    const signal = this.abort.signal;
    let session: TrainSession | null = null;
    let setup: ReadsSetup | null = null;
    const freshEpisodes = `${freshDatabases * 5} fresh episodes`;
    try {
      this.send({ type: 'phase', phase: 'loading', message: `Building the toy databases of run seed ${runSeed} and a tiny model (no download)…` });
      setup = await setupReadsTask(await this.host.sql(), runSeed, { sft: sftDatabases, grpo: grpoDatabases, fresh: freshDatabases });
      signal.throwIfAborted();
      this.beforeSession?.();
      const grpo = { ...DEFAULT_TRAIN_CONFIG, ...READS_GRPO };
      session = await this.host.createSession(setup, {
        lora: TOY_LORA,
        seed: TOY_ADAPTER_SEED,
        rolloutSlots: grpo.groupSize * grpo.promptsPerStep,
        contextTokens: TOY_CONTEXT_TOKENS,
        microBatchTokens: grpo.microBatchTokens,
        signal,
        onProgress: (loaded, total, message) => this.send({ type: 'phase', phase: 'loading', message, loaded, total }),
      });
      signal.throwIfAborted();
      this.send({ type: 'phase', phase: 'running' });
      this.enter('sft', `SFT warm-up: ${sftSteps} steps on the Oracle's transcripts of ${sftDatabases} databases.`);
      const run = await runReads(stoppableModel(session.model, signal), setup, {
        sft: { steps: sftSteps },
        grpo: { steps: grpoSteps, evalEvery: 1, evalTrainSamples: 0, evalEvalSamples: Math.min(READS_CURVE_SAMPLES, freshDatabases * 5), traceEvery: 1 },
        callbacks: {
          sft: this.callbacks('sft', false, `SFT warm-up: ${sftSteps} steps.`, `Measuring the control (fresh success after the warm-up) on ${freshEpisodes}…`),
          grpo: this.callbacks('grpo', true, `GRPO: ${grpoSteps} steps on ${grpoDatabases} databases under the default reward weights.`, `Measuring fresh success after GRPO on ${freshEpisodes}…`),
        },
      });
      signal.throwIfAborted();
      this.send({ type: 'readsResult', result: { runSeed, ceiling: run.ceiling, before: plain(run.before), after: plain(run.after) } });
      this.send({ type: 'phase', phase: 'finished' });
    } catch (e) {
      if (signal.aborted) {
        this.send({ type: 'phase', phase: 'stopped', message: `Stopped ${this.stageValue === null ? 'before training' : `at ${this.stageValue === 'sft' ? 'SFT' : 'GRPO'} step ${this.stepValue}`}: the toy run keeps no checkpoint or adapter, so there is no result.` });
        return;
      }
      this.send({ type: 'error', message: e instanceof Error ? e.message : String(e) });
      this.send({ type: 'phase', phase: 'failed' });
    } finally {
      session?.destroy();
      await setup?.executor.close();
    }
  }
}
