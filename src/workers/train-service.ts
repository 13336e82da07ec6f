/**
 * Training inside the environment worker: one run at a time of `Trainer` (SFT or GRPO) on a trainable copy of the
 * loaded model, against the service's datasets and a SQL executor of its own, streaming `TrainEvent`s to the page.
 * The worker facade (`EnvApi`) delegates its training methods here.
 *
 * A run: 'loading' (the factory reads the base weights again and plans a model for the run: rollout slots =
 * groupSize × promptsPerStep, context = maxEpisodeTokens), then the trainer's own states. Every `checkpointEvery` steps
 * the adapter, GRPO's KL reference adapter, AdamW's moments and the history so far go to the store; resuming a
 * checkpoint checks them (train-checkpoint.ts), restores them into a fresh model and calls `run({ startStep })`, which
 * continues the run exactly. When the run finishes or is stopped its
 * adapter is kept (one adapter per run, replaced by later resumes) and plays as a policy.
 *
 * Failures end the run with an 'error' event (then phase 'failed'), never silently: out of GPU memory names a smaller
 * setting in `suggestion`, a lost device says where to resume from. Full storage at a checkpoint is only a warning
 * (a 'phase' event with a message): the run goes on and the checkpoints saved before stay. `start` and `resume`
 * resolve when the run has ended; what went wrong before anything started (no model, a run already going, a bad
 * config) rejects instead.
 *
 * What a run is doing streams as 'progress' events (loading here, the rest from the trainer). Stop and pause reach
 * the trainer's decode loop at once, and an update between two passes (trainer.ts); the 'paused' phase is reported
 * when the trainer has actually paused, with a note on what Resume will do (`pauseNote`). A stopped run saves a checkpoint of its last step (unless one was just saved), so it can be resumed.
 *
 * While a run goes, a record of it (`ActiveRunRecord`: request, model and its source, step, newest checkpoint) is kept
 * in the store and deleted when the run ends; `interruptedRuns` lists the records a run of an earlier page left
 * behind (reloaded or closed mid-run), so the page can offer to resume them.
 *
 * The trainable model comes from an injected factory: the WebGPU model in the worker (train-gpu-model.ts), the
 * float64 reference in Node tests.
 */
import type { Dataset } from '../data/types.ts';
import type { EnvConfig } from '../env/types.ts';
import type { ModelConfig } from '../model/config.ts';
import type { LoraConfig } from '../model/lora.ts';
import type { SqlExecutor } from '../sql/executor.ts';
import { MicroBatchError } from '../train/microbatch.ts';
import { TrainMemoryError, Trainer, validateTrainConfig, type PausePoint } from '../train/trainer.ts';
import type { TrainConfig } from '../train/types.ts';
import { ProgressReporter } from '../train/progress.ts';
import type { AdapterLibrary } from './adapter-library.ts';
import type { LlmSource } from './llm-source.ts';
import type { LlmPolicySettings } from './llm-settings.ts';
import { READS_TASK_LABEL, type ActiveRunRecord, type CheckpointInfo, type ReadsDefaults, type ReadsEvent, type ReadsStartRequest, type TrainEvent, type TrainModelSource, type TrainPhase, type TrainRunHistory, type TrainStartRequest, type TrainStatus } from './train-protocol.ts';
import { checkCheckpoint, type CheckedCheckpoint } from './train-checkpoint.ts';
import { ReadsRun, readsDefaults, readsSizes, resolveReadsRequest, type ReadsTaskHost } from './train-reads-session.ts';
import type { TrainModelRequest, TrainSession, TrainSessionModel } from './train-session.ts';
import { isQuotaError, TrainStorageFullError, typedArrayBytes, type StoredCheckpoint, type TrainStore } from './train-store.ts';

/** Re-exported for the hosts and tests that import them from here. */
export type { TrainModelRequest, TrainSession, TrainSessionModel };

/** The model held by the service, as training sees it. */
export interface TrainBase {
  label: string;
  config: ModelConfig;
  /** Where the model was loaded from and with which settings (kept with an active run, to load it again). */
  source?: LlmSource;
  settings?: LlmPolicySettings;
  createSession(request: TrainModelRequest): Promise<TrainSession>;
}

export interface TrainServiceDeps {
  store: TrainStore;
  adapters: AdapterLibrary;
  /** The loaded model, or null when none is. */
  base(): TrainBase | null;
  dataset(name: string): Promise<Dataset>;
  createExecutor(): SqlExecutor;
  envConfig?: Partial<EnvConfig>;
  /** Called before a run's model is made (the worker frees its inference engine's GPU memory). */
  beforeSession?(): void;
  now?(): number;
  /** The toy task "learn to read" (train-reads-session.ts); absent where the host cannot run it. */
  reads?: ReadsTaskHost;
}

/** Checkpoints kept per run (older ones are dropped once a newer one is saved). */
export const CHECKPOINTS_KEPT = 2;

interface Run {
  runId: string;
  adapterId: string;
  request: TrainStartRequest;
  config: TrainConfig;
  phase: TrainPhase;
  step: number;
  history: TrainRunHistory;
  trainer: Trainer | null;
  stopRequested: boolean;
  /** Aborts the model's loading when the run is stopped before it has a model. */
  loadAbort: AbortController;
  pauseRequested: boolean;
  /** Stopped because the page is going away: its record stays, so the next page offers to resume the run. */
  leaving: boolean;
  /** Step of the newest checkpoint saved (0: none). */
  checkpointStep: number;
  record: ActiveRunRecord | null;
  emit(e: TrainEvent): void;
}

/** A model source as an active-run record keeps it: a picked folder by its name only (see TrainModelSource). */
export function recordedSource(source: LlmSource | undefined): TrainModelSource | null {
  if (!source) return null;
  if (source.kind !== 'files') return source;
  return { kind: 'files', folder: source.files[0]?.path.split('/')[0] ?? 'the model folder' };
}

export class TrainService {
  private run: Run | null = null;
  /** The toy run going on (one run of either kind at a time: both train on this worker's GPU). */
  private readsRun: ReadsRun | null = null;
  private runs = 0;
  private readsDefaultsValue: ReadsDefaults | null = null;

  constructor(private readonly deps: TrainServiceDeps) {}

  private now(): number {
    return this.deps.now?.() ?? Date.now();
  }

  status(): TrainStatus {
    const t = this.readsRun;
    if (t) return { phase: t.phase, runId: 'toy-reads', step: t.step, totalSteps: t.totalSteps, dataset: READS_TASK_LABEL, adapterId: '' };
    const r = this.run;
    if (!r) return { phase: 'idle' };
    return { phase: r.phase, runId: r.runId, step: r.step, totalSteps: r.config.steps, dataset: r.request.dataset, adapterId: r.adapterId };
  }

  async start(request: TrainStartRequest, onEvent: (e: TrainEvent) => void): Promise<void> {
    const { base, dataset } = await this.prepare(request);
    const name = request.adapterName?.trim() || `${request.config.algo} ${new Date(this.now()).toISOString().slice(0, 16).replace('T', ' ')}`;
    const runId = `run-${this.now().toString(36)}-${++this.runs}`;
    const run = this.begin({ runId, adapterId: await this.deps.adapters.newId(name), request: { ...request, adapterName: name }, config: request.config, history: { runId, metrics: [], evals: [], traces: [] } }, onEvent);
    await this.writeRecord(run, base, null);
    await this.execute(run, base, dataset, null);
  }

  async resume(checkpointId: string, onEvent: (e: TrainEvent) => void): Promise<void> {
    const saved = await this.deps.store.loadCheckpoint(checkpointId);
    if (!saved) throw new RangeError(`No checkpoint '${checkpointId}': it was deleted, or this browser's storage was cleared.`);
    const { base, dataset } = await this.prepare(saved.request);
    if (base.label !== saved.info.model) throw new RangeError(`Checkpoint '${checkpointId}' trains ${saved.info.model}, but ${base.label} is loaded: load ${saved.info.model} first.`);
    const checked = checkCheckpoint(saved, base.config); // before anything is allocated for it
    const run = this.begin({ runId: saved.info.runId, adapterId: saved.adapterId, request: saved.request, config: saved.request.config, history: saved.history }, onEvent);
    run.step = saved.info.step;
    run.checkpointStep = saved.info.step;
    await this.writeRecord(run, base, saved.info.id);
    await this.execute(run, base, dataset, { ...saved, ...checked });
  }

  /** Running: the trainer pauses within one decode step (or between two passes of an update) and then says so. */
  pause(): void {
    const r = this.run;
    if (!r || r.pauseRequested || (r.phase !== 'running' && r.phase !== 'loading')) return;
    r.pauseRequested = true;
    if (r.trainer) r.trainer.pause();
    else this.setPhase(r, 'paused', 'Pauses as soon as the model is loaded.');
  }

  resumeRun(): void {
    const r = this.run;
    if (!r || !r.pauseRequested) return;
    r.pauseRequested = false;
    if (r.trainer) r.trainer.resume();
    else this.setPhase(r, 'loading');
  }

  /** The toy run's default sizes and its fixed-answer ceiling (computed once). */
  readsDefaults(): ReadsDefaults {
    this.readsDefaultsValue ??= readsDefaults();
    return this.readsDefaultsValue;
  }

  /**
   * Runs the toy task "learn to read" (train-reads-session.ts): no loaded model needed; resolves when it has ended.
   * What fails before it starts (a run going, no host, a bad size) rejects instead.
   */
  async startReads(request: ReadsStartRequest, onEvent: (e: ReadsEvent) => void): Promise<void> {
    if (this.run || this.readsRun) throw new Error('A training run is in progress: stop it before starting another.');
    const host = this.deps.reads;
    if (!host) throw new RangeError('The toy task cannot run here (no WebGPU training host).');
    const run = new ReadsRun(host, resolveReadsRequest(request, readsSizes()), onEvent, () => this.deps.beforeSession?.());
    this.readsRun = run;
    try {
      await run.run();
    } finally {
      if (this.readsRun === run) this.readsRun = null;
    }
  }

  /** Stops the run within one decode step; `leaving`: the page is going away (the run's record is kept). */
  stop(options: { leaving?: boolean } = {}): void {
    this.readsRun?.stop();
    const r = this.run;
    if (!r) return;
    r.stopRequested = true;
    if (!r.trainer) r.loadAbort.abort(); // still loading: reading the weights again can take minutes
    r.leaving ||= options.leaving === true;
    r.trainer?.stop();
  }

  /** Records of runs that an earlier page started and never ended (reloaded or closed mid-run), newest first. */
  async interruptedRuns(): Promise<ActiveRunRecord[]> {
    const records = (await this.deps.store.listActiveRuns?.()) ?? [];
    return records.filter((x) => x.runId !== this.run?.runId);
  }

  /** Forgets an interrupted run's record (its checkpoints stay listed). */
  async discardInterruptedRun(runId: string): Promise<void> {
    if (this.run?.runId === runId) return;
    await this.deps.store.deleteActiveRun?.(runId);
  }

  listCheckpoints(): Promise<CheckpointInfo[]> {
    return this.deps.store.listCheckpoints();
  }

  deleteCheckpoint(id: string): Promise<void> {
    return this.deps.store.deleteCheckpoint(id);
  }

  /** The run's history: the live run's, else the saved one (after its end or its newest checkpoint). */
  async history(runId: string): Promise<TrainRunHistory> {
    if (this.run?.runId === runId) return structuredClone(this.run.history);
    const saved = await this.deps.store.loadHistory(runId);
    if (saved) return saved;
    const newest = (await this.deps.store.listCheckpoints()).find((c) => c.runId === runId);
    const checkpoint = newest ? await this.deps.store.loadCheckpoint(newest.id) : null;
    if (checkpoint) return checkpoint.history;
    throw new RangeError(`No history of run '${runId}' is kept.`);
  }

  /** Checks that a run can start now; what fails here rejects before any event. */
  private async prepare(request: TrainStartRequest): Promise<{ base: TrainBase; dataset: Dataset }> {
    if (this.run || this.readsRun) throw new Error('A training run is in progress: stop it before starting another.');
    const base = this.deps.base();
    if (!base) throw new RangeError("No model is loaded: load one in Watch's Model panel, then train it.");
    validateTrainConfig(request.config);
    return { base, dataset: await this.deps.dataset(request.dataset) };
  }

  private begin(fields: Pick<Run, 'runId' | 'adapterId' | 'request' | 'config' | 'history'>, emit: (e: TrainEvent) => void): Run {
    const run: Run = { ...fields, phase: 'loading', step: 0, trainer: null, stopRequested: false, loadAbort: new AbortController(), pauseRequested: false, leaving: false, checkpointStep: 0, record: null, emit };
    this.run = run;
    return run;
  }

  /** Writes the run's active-run record (a failure to write it never stops the run). */
  private async writeRecord(r: Run, base: TrainBase, checkpointId?: string | null): Promise<void> {
    const now = this.now();
    r.record = r.record
      ? { ...r.record, step: r.step, checkpointStep: r.checkpointStep, ...(checkpointId !== undefined && { checkpointId }), updatedAt: now }
      : {
          runId: r.runId,
          request: r.request,
          model: base.label,
          source: recordedSource(base.source),
          ...(base.settings && { modelSettings: base.settings }),
          step: r.step,
          totalSteps: r.config.steps,
          checkpointId: checkpointId ?? null,
          checkpointStep: r.checkpointStep,
          startedAt: now,
          updatedAt: now,
        };
    try {
      await this.deps.store.saveActiveRun?.(r.record);
    } catch {
      // Only the offer to resume after a reload is lost; the run and its checkpoints go on.
    }
  }

  private async clearRecord(r: Run): Promise<void> {
    try {
      await this.deps.store.deleteActiveRun?.(r.runId);
    } catch {
      // A stale record only offers to resume a run that ended: its checkpoints say where it got to.
    }
  }

  private setPhase(r: Run, phase: TrainPhase, message?: string): void {
    r.phase = phase;
    r.emit({ type: 'phase', phase, ...(message !== undefined && { message }) });
  }

  private async execute(r: Run, base: TrainBase, dataset: Dataset, saved: (StoredCheckpoint & CheckedCheckpoint) | null): Promise<void> {
    const c = r.config;
    let session: TrainSession | null = null;
    let executor: SqlExecutor | null = null;
    try {
      this.setPhase(r, 'loading', `Loading ${base.label} for training…`);
      const progress = new ProgressReporter((p) => r.emit({ type: 'progress', progress: p }), () => this.now());
      const loading = progress.begin('loading', r.step, `Loading ${base.label} for training`);
      const init = saved ? saved.adapter : r.request.initAdapterId ? (await this.deps.adapters.load(r.request.initAdapterId)).adapter : null;
      const lora: LoraConfig = init?.config ?? { rank: c.loraRank, alpha: c.loraAlpha, targetModules: [...c.loraTargets], dropout: 0, useRslora: false };
      this.deps.beforeSession?.();
      r.loadAbort.signal.throwIfAborted(); // stopped already (caught below as a stop, not a failure)
      session = await base.createSession({
        lora,
        seed: c.seed,
        rolloutSlots: c.groupSize * c.promptsPerStep,
        contextTokens: c.maxEpisodeTokens,
        microBatchTokens: c.microBatchTokens,
        signal: r.loadAbort.signal,
        onProgress: (loaded, total, message) => {
          r.emit({ type: 'phase', phase: 'loading', message, loaded, total });
          loading.update(loaded, total, `Loading ${base.label} for training: ${message}`);
        },
      });
      loading.finish(`Loaded ${base.label}`);
      const model = session.model;
      if (init) model.loadAdapter(init);
      if (saved) model.loadOptimizerState(saved.optimizer);
      executor = this.deps.createExecutor();
      if (saved && saved.referenceAdapter === undefined && c.algo === 'grpo' && c.klBeta > 0) {
        r.emit({ type: 'phase', phase: 'loading', message: 'This checkpoint was saved before checkpoints kept the KL reference: the resumed run anchors its KL to the checkpoint\'s adapter, not to the one the run started from.' });
      }
      // A resumed run anchors its KL where the uninterrupted run did (undefined: the trainer freezes the adapter it starts with).
      const trainer = new Trainer({ model, dataset, executor, envConfig: this.deps.envConfig, referenceAdapter: saved?.referenceAdapter }, c, {
        onStep: (metrics) => {
          r.step = metrics.step;
          r.history.metrics.push(metrics);
          r.emit({ type: 'step', metrics });
          void this.writeRecord(r, base);
        },
        onEval: (point) => {
          r.history.evals.push(point);
          r.emit({ type: 'eval', point });
        },
        onTrace: (trace) => {
          r.history.traces.push(trace);
          r.emit({ type: 'trace', trace });
        },
        onCheckpoint: (step) => this.checkpoint(r, base, model, step),
        onProgress: (progress) => r.emit({ type: 'progress', progress }),
        onStateChange: (state, pausedAt) => {
          if (state === 'paused') this.setPhase(r, 'paused', pauseNote(pausedAt ?? 'between-steps'));
          else if (state === 'running') this.setPhase(r, 'running');
        },
      });
      r.trainer = trainer;
      if (r.stopRequested) return this.end(r, base, model, 'stopped');
      if (!r.pauseRequested) this.setPhase(r, 'running');
      const running = trainer.run({ startStep: saved?.info.step ?? 0 });
      if (r.pauseRequested) trainer.pause(); // paused while loading: the trainer accepts a pause only once it runs
      const result = await running;
      await this.end(r, base, model, result.stopped ? 'stopped' : 'finished');
    } catch (e) {
      if (r.stopRequested && session === null) {
        // Stopped while loading: not a failure, and nothing was trained (a resumed run's checkpoints stay).
        this.setPhase(r, 'stopped', 'Stopped while the model was loading: nothing was trained.');
        return;
      }
      r.emit({ type: 'error', ...describeFailure(e, r, session) });
      this.setPhase(r, 'failed');
    } finally {
      if (!r.leaving) await this.clearRecord(r);
      session?.destroy();
      await executor?.close();
      if (this.run === r) this.run = null;
    }
  }

  private async checkpoint(r: Run, base: TrainBase, model: TrainSessionModel, step: number): Promise<void> {
    const [adapter, optimizer] = await Promise.all([model.readAdapter(), model.readOptimizerState()]);
    const referenceAdapter = r.trainer?.referenceAdapter ?? null;
    const info: CheckpointInfo = {
      id: `${r.runId}@${step}`,
      runId: r.runId,
      step,
      totalSteps: r.config.steps,
      dataset: r.request.dataset,
      model: base.label,
      config: r.config,
      savedAt: this.now(),
      bytes: typedArrayBytes([adapter, referenceAdapter, optimizer]),
    };
    try {
      await this.deps.store.saveCheckpoint({ info, request: r.request, adapterId: r.adapterId, adapter, referenceAdapter, optimizer, history: r.history }, CHECKPOINTS_KEPT);
    } catch (e) {
      if (!isQuotaError(e)) throw e;
      r.emit({ type: 'phase', phase: r.phase, message: `${new TrainStorageFullError(`the checkpoint of step ${step}`).message} Training goes on.` });
      return;
    }
    r.checkpointStep = step;
    await this.writeRecord(r, base, info.id);
    r.emit({ type: 'checkpoint', checkpoint: info });
  }

  /** Keeps the run's adapter (a policy from now on) and its history, then reports the final phase. */
  private async end(r: Run, base: TrainBase, model: TrainSessionModel, phase: 'finished' | 'stopped'): Promise<void> {
    // A stopped run can be resumed from where it stopped.
    if (phase === 'stopped' && r.step > r.checkpointStep && r.step < r.config.steps) await this.checkpoint(r, base, model, r.step);
    const adapter = await model.readAdapter();
    let message: string | undefined;
    try {
      await this.deps.adapters.save(r.adapterId, { name: r.request.adapterName ?? r.adapterId, origin: 'trained', baseModel: base.label, steps: r.step }, adapter, base.config);
      await this.deps.store.saveHistory(r.history);
    } catch (e) {
      if (!isQuotaError(e)) throw e;
      message = new TrainStorageFullError(`the adapter '${r.request.adapterName ?? r.adapterId}'`).message;
    }
    this.setPhase(r, phase, message);
  }
}

/** What Resume will do, said when the run has paused at `at` (see PausePoint). */
export function pauseNote(at: PausePoint): string {
  switch (at) {
    case 'update':
      return 'Paused inside the update, between two passes: Resume goes on from there (nothing is redone).';
    case 'generation':
      return 'Resume starts the interrupted episodes (rollouts or evaluation) again from their beginning: same seeds, same result.';
    case 'between-steps':
      return 'Resume goes on with the next part of the run (nothing is redone).';
    default:
      return at satisfies never;
  }
}

/** The 'error' event of a failed run: the message, and a smaller setting when the device ran out of memory. */
export function describeFailure(e: unknown, r: Pick<Run, 'config' | 'step'>, session: TrainSession | null): { message: string; suggestion?: Partial<TrainConfig> } {
  const c = r.config;
  const message = e instanceof Error ? e.message : String(e);
  const lost = session?.deviceLost?.() ?? (e instanceof Error && e.name === 'GpuDeviceLostError' ? e : null);
  if (lost) return { message: `The GPU device was lost during training (${lost.message}). The run stopped after step ${r.step}: load the model again and resume from the last checkpoint.` };
  if (e instanceof TrainMemoryError) return { message, suggestion: { microBatchTokens: e.suggestedMicroBatchTokens } };
  if (e instanceof MicroBatchError) return { message, ...(e.suggestedMaxEpisodeTokens !== null && { suggestion: { maxEpisodeTokens: e.suggestedMaxEpisodeTokens } }) };
  if (e instanceof Error && /OutOfMemory/i.test(e.name)) return { message, suggestion: smallerRun(c) };
  return { message };
}

/** The run halved where it costs the most memory: the sequences decoded together, then the episode length. */
export function smallerRun(c: TrainConfig): Partial<TrainConfig> {
  if (c.promptsPerStep > 1) return { promptsPerStep: Math.floor(c.promptsPerStep / 2) };
  if (c.groupSize > 2) return { groupSize: Math.max(2, Math.floor(c.groupSize / 2)) };
  return { maxEpisodeTokens: Math.max(128, Math.floor(c.maxEpisodeTokens / 2)) };
}
