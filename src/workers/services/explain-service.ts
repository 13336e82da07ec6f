/**
 * "What the adapter changed" in the page: an episode's model replies scored teacher-forced under the held base model
 * and under base + a kept adapter (src/eval/explain.ts for the prompts and layout, src/train/score-tokens.ts for the
 * scores). The scores come from the trainer's own forward: a trainable copy of the held model (`trainBase().
 * createSession`, as a training run makes one: its own device, the weights read again from where they came from)
 * with the adapter loaded, destroyed when done; the inference engine is released meanwhile as for training.
 *
 * The prompt settings are the run's where its summary names them (`shots`, `thinking`, `maxNewTokens`,
 * `contextTokens`), else the held model's current ones. Refused with a clear message: no model held, training
 * running, an adapter missing or made for another base model, an episode with no model replies.
 */
import type { Dataset } from '../../data/types.ts';
import { SqlEnv } from '../../env/env.ts';
import type { EnvConfig } from '../../env/types.ts';
import { explainTurns, explanationOf, ExplainError, firstObservation, turnSequences, type EpisodeExplanation, type ExplainPromptSettings } from '../../eval/explain.ts';
import type { EpisodeRecord } from '../../eval/transcript.ts';
import type { SqlExecutor } from '../../sql/executor.ts';
import { scoreBaseAndAdapter } from '../../train/score-tokens.ts';
import type { AdapterLibrary } from '../adapter-library.ts';
import type { TrainStatus } from '../train-protocol.ts';
import { oracleShots } from './model-load.ts';
import type { ModelService } from './model-service.ts';
import { CancelledError } from '../../util/cancelled.ts';

export interface ExplainRequest {
  record: EpisodeRecord;
  /** The kept adapter to compare with the base (adapter-library.ts id). */
  adapterId: string;
  /** The run's settings (run-store `RunSummary.settings`), when known: they win over the held model's. */
  runSettings?: Record<string, string | number | boolean | null>;
}

/** Where an explanation is: loading the trainable copy, then scoring (sequences done of all). */
export interface ExplainProgress {
  phase: 'loading' | 'scoring';
  done: number;
  total: number;
  message: string;
}

export interface ExplainServiceDeps {
  models: ModelService;
  adapters: AdapterLibrary;
  dataset: (name: string) => Promise<Dataset>;
  createExecutor: () => SqlExecutor;
  envConfig?: Partial<EnvConfig>;
  trainingStatus: () => TrainStatus;
  /** Frees the inference engine's GPU memory before the trainable copy is made. */
  beforeSession?: () => void;
}

/** Sequence slots of the scoring copy: enough to score a few turns per forward, small enough for any device. */
const SCORING_SLOTS = 4;

export class ExplainService {
  private current: AbortController | null = null;

  constructor(private readonly deps: ExplainServiceDeps) {}

  /** Explains one episode (see the header); a second call cancels the first (it rejects with a CancelledError). */
  async explainEpisode(request: ExplainRequest, onProgress: (p: ExplainProgress) => void = () => undefined): Promise<EpisodeExplanation> {
    this.cancel();
    const controller = new AbortController();
    this.current = controller;
    try {
      return await this.explain(request, onProgress, controller.signal);
    } finally {
      if (this.current === controller) this.current = null;
    }
  }

  /** Stops the explanation in progress, if any, within one forward. */
  cancel(): void {
    this.current?.abort(new CancelledError('Explanation cancelled.'));
  }

  private async explain(request: ExplainRequest, onProgress: (p: ExplainProgress) => void, signal: AbortSignal): Promise<EpisodeExplanation> {
    const { models, adapters } = this.deps;
    const base = models.trainBase();
    const info = models.modelInfo();
    const loaded = models.loaded();
    if (!base || !info || !loaded) throw new ExplainError('No model is loaded: load the base model the adapter was trained on (Model panel) to see what the adapter changed.');
    if (this.deps.trainingStatus().phase !== 'idle') throw new ExplainError('Training is running on the GPU: wait for it to end (or stop it) to see what the adapter changed.');
    const adapterInfo = await adapters.info(request.adapterId);
    if (adapterInfo.baseModel !== base.label) throw new ExplainError(`The adapter '${adapterInfo.name}' was made for ${adapterInfo.baseModel}, but ${base.label} is loaded: load that model to explain it.`);
    const adapter = (await adapters.load(request.adapterId)).adapter;
    const prompt = await this.promptSettings(request, info.settings, info.contextTokens);
    const dataset = await this.deps.dataset(request.record.dataset);
    const executor = this.deps.createExecutor();
    let first: string;
    try {
      first = await firstObservation(new SqlEnv(dataset, executor, this.deps.envConfig), request.record);
    } finally {
      await executor.close();
    }
    const turns = explainTurns(request.record, first, loaded.tokenizer, prompt);
    const sequences = turnSequences(turns);
    signal.throwIfAborted();

    this.deps.beforeSession?.();
    const session = await base.createSession({
      lora: adapter.config,
      seed: 0,
      rolloutSlots: Math.min(SCORING_SLOTS, sequences.length),
      contextTokens: Math.max(...sequences.map((s) => s.tokenIds.length)),
      microBatchTokens: 0,
      signal,
      onProgress: (done, total, message) => onProgress({ phase: 'loading', done, total, message }),
    });
    try {
      session.model.loadAdapter(adapter);
      onProgress({ phase: 'scoring', done: 0, total: sequences.length, message: 'Scoring the replies' });
      const scores = await scoreBaseAndAdapter(session.model, sequences, { signal, onProgress: (done, total) => onProgress({ phase: 'scoring', done, total, message: 'Scoring the replies' }) });
      return explanationOf(request.record, turns, scores, loaded.tokenizer);
    } finally {
      session.destroy();
    }
  }

  /** The run's prompt settings where it names them, else the held model's (see the header). */
  private async promptSettings(request: ExplainRequest, held: { shots: number; shotDataset: string; thinking: boolean; maxNewTokens: number }, heldContext: number): Promise<ExplainPromptSettings> {
    const run = request.runSettings ?? {};
    const num = (k: string): number | undefined => (typeof run[k] === 'number' ? (run[k]) : undefined);
    const shots = num('shots') ?? held.shots;
    const shotDataset = typeof run.shotDataset === 'string' ? run.shotDataset : held.shotDataset;
    return {
      shots: shots > 0 ? await oracleShots(this.deps, shotDataset, shots) : [],
      thinking: typeof run.thinking === 'boolean' ? run.thinking : held.thinking,
      contextTokens: num('contextTokens') ?? heldContext,
      maxNewTokens: num('maxNewTokens') ?? held.maxNewTokens,
    };
  }
}
