/**
 * The training loop, SFT or GRPO, against a `TrainableModel` (GPU engine or CPU reference) and the real environment.
 *
 * GRPO step s (1-based): take `promptsPerStep` train questions (a seeded shuffle of the train split, reshuffled
 * each epoch), sample G episodes each (rollout.ts), weight their reward components, compute group advantages
 * (grpo.ts), then `updatesPerRollout` updates: per micro-batch (microbatch.ts) the reference forward (only when
 * klBeta > 0, once per step), the policy forward, the loss and its gradient per token, `backward`; then one
 * optimizer step. Every forward scores at the rollouts' temperature (log-softmax(logits / T), as TRL), so the ratio,
 * the KL and the sampler/trainer gap compare like with like. The KL reference policy is the one the run started
 * from: `run` freezes the model's adapter when it starts (TrainerDeps.referenceAdapter instead, when resuming), so
 * after an SFT warm-up or with a loaded adapter the KL holds the policy near that start, not near the base model;
 * a fresh adapter (B = 0) is the base model. The loss is normalised by the batch's N model tokens (DAPO) or by
 * Dr. GRPO's constant (`lossType`). The first update's π_old is the policy's own forward (detached: the weights have
 * not moved since sampling), kept for the later updates. With klBeta = 0, episodes with advantage 0 are left out of
 * the forward and backward (their gradient is exactly 0) but their tokens still count in N; a step where every
 * group has equal rewards then makes no update at all (AdamW on a zero gradient would still move the adapter along
 * its momentum, which was seen to undo a learned policy).
 *
 * SFT step s: `sftExamplesPerStep` Oracle demonstrations of train questions (built once, seeded shuffle, cycled),
 * mean NLL over assistant tokens, micro-batched, one optimizer step.
 *
 * Around the steps: an evaluation (greedy episodes on fixed seeded samples of the train and eval splits) before the
 * first step and every `evalEvery` steps and after the last; a trace (the step's first episode; for SFT a greedy
 * episode on the step's first question) every `traceEvery` steps; `onCheckpoint` every `checkpointEvery` steps.
 * Progress (`onProgress`, progress.ts): every activity — evaluation, rollouts, demonstrations, update, trace,
 * checkpoint — reports as it starts and as it goes (episodes by decode step, micro-batches), with an estimate.
 *
 * Stop and pause: generation (evaluations, rollouts, the SFT trace) runs under an AbortSignal that reaches the
 * model's decode loop, so `stop` and `pause` interrupt it within one decode step. A paused step or evaluation waits,
 * then starts again from its beginning on `resume` (its seeds make it the same work; nothing of it was applied yet).
 * An update pauses between its passes (after any micro-batch's forward or backward): the run waits there with its
 * half-accumulated gradient held and, on `resume`, goes on with the next pass — nothing is redone. `stop` also ends
 * an update between passes (the optimizer step is not taken, so the adapter stays the previous step's).
 * `onStateChange` says when the run is actually paused (and where: `PausePoint`, which says what Resume does) or
 * running again. Every random choice derives from (seed, step, …), so a run is
 * repeatable and `run({ startStep })` continues one exactly when the caller restores the adapter and its optimizer
 * state (the AdamW step number is derived from the step).
 *
 * Over 600 lines because the GRPO step, the SFT step and the run loop with its stop/pause/progress handling share
 * the trainer's state (seeded order, pause and stop requests, the generation's AbortSignal); splitting them would
 * spread one recipe over files that each need all of it.
 */
import { createRng, shuffled } from '../data/rng.ts';
import type { Dataset, Question } from '../data/types.ts';
import { SqlEnv } from '../env/env.ts';
import { validateRewardWeights } from '../env/rewards.ts';
import type { EnvConfig } from '../env/types.ts';
import type { LoraAdapter } from '../model/lora.ts';
import type { Shot } from '../policies/llm/prompt.ts';
import type { SqlExecutor } from '../sql/executor.ts';
import { groupAdvantages, lossNormaliser, pgLoss } from './grpo.ts';
import { effectiveLimits, MicroBatchError, packMicroBatches } from './microbatch.ts';
import type { TrainableModel } from './policy-model.ts';
import { ProgressReporter, type ActivityProgress } from './progress.ts';
import { assertValidSettings, TrainConfigError } from './settings-check.ts';
import { deriveSeed, rollout, rolloutGroups, type RolledEpisode, type RolloutHooks, type RolloutProgress, type RolloutSettings } from './rollout.ts';
import { actionText, buildSftExamples, sftLoss, type SftExample } from './sft.ts';
import { learningRateAt } from './lr-schedule.ts';
import { DEFAULT_TRAIN_CONFIG, type EvalPoint, type RewardMeans, type StepMetrics, type TraceEntry, type TrainConfig, type TrainProgress } from './types.ts';

export interface TrainerDeps {
  model: TrainableModel;
  dataset: Dataset;
  /** Shared by the episodes' environments. */
  executor: SqlExecutor;
  /** Few-shot examples in every prompt (rollouts, evaluations and SFT demonstrations alike); default none. */
  shots?: readonly Shot[];
  /** Environment settings; the step budget is the run's maxTurns and the reward weights its own. */
  envConfig?: Partial<EnvConfig>;
  /** Least milliseconds between two progress reports of one activity (progress.ts); default 100. */
  progressIntervalMs?: number;
  /**
   * GRPO with klBeta > 0: the KL reference adapter (null: the base model). Give the `referenceAdapter` of the run
   * being resumed; absent, `run` freezes the adapter the model holds when it starts.
   */
  referenceAdapter?: LoraAdapter | null;
}

export interface TrainerCallbacks {
  onStep?(metrics: StepMetrics): void;
  onEval?(point: EvalPoint): void;
  onTrace?(trace: TraceEntry): void;
  onCheckpoint?(step: number): Promise<void> | void;
  /** What the run is doing now (see progress.ts); throttled, but every activity's start and end are reported. */
  onProgress?(progress: TrainProgress): void;
  /** The run is actually paused (`pausedAt` says where, hence what Resume does), or running again. */
  onStateChange?(state: TrainerState, pausedAt?: PausePoint): void;
}

/**
 * Where a pause took hold, which says what Resume does: 'update' — between two passes of an update, Resume goes on
 * with the next pass (the gradient accumulated so far is kept; nothing is redone); 'generation' — rollouts, an
 * evaluation or a trace were interrupted, Resume runs them again from their beginning (same seeds, same result);
 * 'between-steps' — nothing was under way, Resume goes on with the next step.
 */
export type PausePoint = 'update' | 'generation' | 'between-steps';

export type TrainerState = 'idle' | 'running' | 'paused' | 'stopped' | 'finished' | 'failed';

export interface TrainResult {
  metrics: StepMetrics[];
  evals: EvalPoint[];
  traces: TraceEntry[];
  /** Last completed step. */
  lastStep: number;
  stopped: boolean;
}

/** Generation was interrupted by `stop` or `pause` (the abort reason of the run's signal). */
export class TrainInterrupted extends Error {
  override name = 'TrainInterrupted';
  constructor(readonly by: 'stop' | 'pause') {
    super(by === 'stop' ? 'The run was stopped.' : 'The run was paused.');
  }
}

// The settings check lives in settings-check.ts (shared with the Train view, the CLI and the worker).
export { TrainConfigError };

/** The update ran out of device memory: the message names a smaller setting. */
export class TrainMemoryError extends Error {
  override name = 'TrainMemoryError';
  constructor(
    message: string,
    readonly suggestedMicroBatchTokens: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

const OBSERVATION_CHARS = 600;

/** The passes of an update's micro-batch, in their order: a reference forward (first update, KL β > 0), forward, backward. */
type UpdatePass = 'reference forward' | 'forward' | 'backward';
/** A pass's cost in forward passes, for the update's progress bar: a backward costs about two forwards (FLOPs). */
const UPDATE_PASS_COST: Record<UpdatePass, number> = { 'reference forward': 1, forward: 1, backward: 2 };
/** The cost of the passes that always follow a pass in its micro-batch (a forward and its backward follow a reference forward). */
const UPDATE_COST_AFTER: Record<UpdatePass, number> = { 'reference forward': 3, forward: 2, backward: 0 };

/** Throws `TrainConfigError` (with the field at fault) unless `c` passes the one settings check (settings-check.ts). */
export function validateTrainConfig(c: TrainConfig): void {
  assertValidSettings(c);
}

function mean(xs: readonly number[]): number {
  return xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length;
}

function rewardMeans(items: ReadonlyArray<{ components: { correctness: number; progress: number; operational: number }; reward: number }>): RewardMeans {
  return {
    correctness: mean(items.map((e) => e.components.correctness)),
    progress: mean(items.map((e) => e.components.progress)),
    operational: mean(items.map((e) => e.components.operational)),
    total: mean(items.map((e) => e.reward)),
  };
}

function maskCount(mask: ArrayLike<number>): number {
  let n = 0;
  for (let t = 1; t < mask.length; t++) if (mask[t]) n++;
  return n;
}

export function traceFromEpisode(step: number, e: RolledEpisode): TraceEntry {
  return {
    step,
    questionId: e.questionId,
    question: e.question,
    dbId: e.dbId,
    actions: e.turns.map((t) => ({
      rawText: t.rawText,
      action: actionText(t.action),
      outcome: t.outcome,
      observation: t.observation.length > OBSERVATION_CHARS ? `${t.observation.slice(0, OBSERVATION_CHARS)}…` : t.observation,
      reward: t.reward,
      components: t.components,
    })),
    correct: e.correct,
    reward: e.reward,
  };
}

export class Trainer {
  readonly config: TrainConfig;
  private readonly deps: TrainerDeps;
  private readonly callbacks: TrainerCallbacks;
  private readonly train: Question[];
  private readonly evalTrain: Question[];
  private readonly evalEval: Question[];
  private sftPool: SftExample[] | null = null;
  private stateValue: TrainerState = 'idle';
  private stopRequested = false;
  private resumeWaiter: (() => void) | null = null;
  private pauseRequested = false;
  /** The signal of the generation going on now (null outside one). */
  private generation: AbortController | null = null;
  private readonly progress: ProgressReporter;
  private reference: LoraAdapter | null = null;

  constructor(deps: TrainerDeps, config: Partial<TrainConfig> = {}, callbacks: TrainerCallbacks = {}) {
    this.config = { ...DEFAULT_TRAIN_CONFIG, ...config, rewardWeights: { ...DEFAULT_TRAIN_CONFIG.rewardWeights, ...config.rewardWeights } };
    validateTrainConfig(this.config);
    // The environment's rule, checked now rather than at the first episode: shaping never outweighs a correct answer.
    validateRewardWeights(this.config.rewardWeights, this.config.maxTurns);
    this.deps = deps;
    this.callbacks = callbacks;
    this.progress = new ProgressReporter((p) => this.callbacks.onProgress?.(p), undefined, deps.progressIntervalMs);
    const usable = deps.dataset.questions.filter((q) => !q.freePlay);
    this.train = usable.filter((q) => q.split === 'train');
    if (this.train.length === 0) throw new TrainConfigError(`dataset '${deps.dataset.name}' has no train questions`);
    const s = this.config.seed;
    this.evalTrain = shuffled(createRng(deriveSeed(s, 'eval-train')), this.train).slice(0, this.config.evalTrainSamples);
    this.evalEval = shuffled(
      createRng(deriveSeed(s, 'eval-eval')),
      usable.filter((q) => q.split === 'eval'),
    ).slice(0, this.config.evalEvalSamples);
  }

  get state(): TrainerState {
    return this.stateValue;
  }

  /** The KL reference adapter of this run (null: the base model); save it with checkpoints to resume exactly. */
  get referenceAdapter(): LoraAdapter | null {
    return this.reference;
  }

  /** Sets the model's KL reference: the resumed run's (deps) or the adapter the model holds now (see the header). */
  private async freezeReference(): Promise<void> {
    const model = this.deps.model;
    this.reference = this.deps.referenceAdapter !== undefined ? this.deps.referenceAdapter : ((await model.readAdapter?.()) ?? null);
    model.setReferenceAdapter?.(this.reference);
  }

  pause(): void {
    if (this.stateValue !== 'running') return;
    this.pauseRequested = true;
    this.generation?.abort(new TrainInterrupted('pause'));
  }

  resume(): void {
    this.pauseRequested = false;
    this.resumeWaiter?.();
  }

  stop(): void {
    this.stopRequested = true;
    this.generation?.abort(new TrainInterrupted('stop'));
    this.resumeWaiter?.();
  }

  /** Runs a generation under a fresh AbortSignal that `stop` and `pause` abort. */
  private async interruptible<T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
    if (this.stopRequested || this.pauseRequested) throw new TrainInterrupted(this.stopRequested ? 'stop' : 'pause');
    const controller = new AbortController();
    this.generation = controller;
    try {
      return await fn(controller.signal);
    } finally {
      if (this.generation === controller) this.generation = null;
    }
  }

  /** Rollout hooks reporting into `activity` ("<what>: 3 of 16 episodes done (turn 2 of 6, 340 tokens)"), offset by earlier episodes. */
  private rolloutHooks(signal: AbortSignal, activity: ActivityProgress, what: string, offset = 0, total?: number): RolloutHooks {
    return {
      signal,
      onProgress: (p: RolloutProgress) => {
        const n = total ?? p.episodes;
        const done = offset + p.fraction * p.episodes;
        activity.update(done, n, `${what}: ${offset + p.finished} of ${n} episodes done (turn ${p.turn} of ${p.maxTurns}, ${p.tokens} tokens generated)`, p.tokens);
      },
    };
  }

  createEnv = (): SqlEnv =>
    new SqlEnv(this.deps.dataset, this.deps.executor, { ...this.deps.envConfig, budget: this.config.maxTurns, weights: this.config.rewardWeights });

  rolloutSettings(temperature = this.config.temperature): RolloutSettings {
    const c = this.config;
    return {
      maxTurns: c.maxTurns,
      maxNewTokensPerTurn: c.maxNewTokensPerTurn,
      maxEpisodeTokens: c.maxEpisodeTokens,
      temperature,
      topP: temperature > 0 ? c.topP : 1,
      thinking: c.thinking,
      rewardWeights: c.rewardWeights,
      shots: this.deps.shots,
    };
  }

  /** The learning rate of step s (its warm-up and schedule: lr-schedule.ts). */
  lrAt(step: number): number {
    return learningRateAt(this.config, step);
  }

  /** The questions of step s: the k-th prompt of the run is position k of its epoch's seeded shuffle. */
  questionsForStep(step: number, count: number): Question[] {
    const n = this.train.length;
    const out: Question[] = [];
    for (let j = 0; j < count; j++) {
      const k = (step - 1) * count + j;
      out.push(this.epochOrder(Math.floor(k / n))[k % n]);
    }
    return out;
  }

  private epochCache: { epoch: number; order: Question[] } | null = null;

  private epochOrder(epoch: number): Question[] {
    if (this.epochCache?.epoch !== epoch) this.epochCache = { epoch, order: shuffled(createRng(deriveSeed(this.config.seed, 'epoch', epoch)), this.train) };
    return this.epochCache.order;
  }

  private adamw(step: number, update: number) {
    const c = this.config;
    return { lr: this.lrAt(step), beta1: c.adamBeta1, beta2: c.adamBeta2, eps: c.adamEps, weightDecay: c.weightDecay, step: (step - 1) * c.updatesPerRollout + update, maxGradNorm: c.maxGradNorm };
  }

  private limits() {
    return effectiveLimits(this.deps.model.microBatchLimits, this.config.microBatchTokens);
  }

  /** Runs `fn` and turns an out-of-memory failure into a TrainMemoryError naming a smaller micro-batch. */
  private async guardMemory<T>(largestMicroBatch: number, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      if (e instanceof Error && /OutOfMemory/i.test(e.name)) {
        const smaller = Math.max(1, Math.floor(largestMicroBatch / 2));
        throw new TrainMemoryError(
          `The GPU ran out of memory during the update (micro-batches of up to ${largestMicroBatch} tokens). Set "tokens per micro-batch" to ${smaller} (or lower maxEpisodeTokens / groupSize) and start again.`,
          smaller,
          { cause: e },
        );
      }
      throw e;
    }
  }

  /** One GRPO step: rollouts, advantages, updates. */
  async grpoStep(step: number): Promise<{ metrics: StepMetrics; episodes: RolledEpisode[] }> {
    const c = this.config;
    const model = this.deps.model;
    const t0 = performance.now();
    const questions = this.questionsForStep(step, c.promptsPerStep);
    const episodesWanted = questions.length * c.groupSize;
    const sampling = this.progress.begin('rollout', step, `Step ${step}: sampling ${episodesWanted} episodes`, episodesWanted);
    const groups = await this.interruptible((signal) =>
      rolloutGroups(model, this.createEnv, questions, c.groupSize, c.seed, `step-${step}`, this.rolloutSettings(), this.rolloutHooks(signal, sampling, `Step ${step}: sampling episodes`)),
    );
    sampling.finish();
    const t1 = performance.now();

    let zeroVarianceGroups = 0;
    const items: Array<{ episode: RolledEpisode; tokenIds: number[]; lossMask: Uint8Array; advantage: number; old?: Float32Array; ref?: Float32Array }> = [];
    for (const group of groups) {
      const adv = groupAdvantages(
        group.map((e) => e.reward),
        c.stdScaling,
      );
      if (adv.zeroVariance) zeroVarianceGroups++;
      group.forEach((episode, i) => items.push({ episode, tokenIds: episode.tokenIds, lossMask: episode.lossMask, advantage: adv.advantages[i] }));
    }
    const episodes = groups.flat();
    const N = items.reduce((a, it) => a + maskCount(it.lossMask), 0);
    const tokens = items.reduce((a, it) => a + it.tokenIds.length, 0);
    const trained = c.klBeta > 0 ? items : items.filter((it) => it.advantage !== 0);
    const batches = packMicroBatches(trained, this.limits());
    const largest = Math.max(0, ...batches.map((b) => b.reduce((a, it) => a + it.tokenIds.length, 0)));

    let loss = 0;
    let gradNorm = 0;
    let clipped = 0;
    let klSum = 0;
    let gap = 0;
    let gapCount = 0;
    // Sampler and trainer both score under softmax(logits / T); top-p renormalises the sampler's, so it is left out.
    const exactSampler = c.topP >= 1;
    const scoring = { temperature: c.temperature };
    const normaliser = lossNormaliser(c.lossType, N, items.length, c.maxTurns * c.maxNewTokensPerTurn);
    // No signal (every group's rewards equal, no KL): no update at all. An AdamW step on a zero gradient would still
    // move the adapter along its momentum.
    const updates = batches.length === 0 ? 0 : c.updatesPerRollout;
    const updating = this.updateProgress(step, batches.length * updates, updates * batches.reduce((a, mb) => a + tokenCount(mb), 0));
    for (let update = 1; update <= updates; update++) {
      let passLoss = 0;
      let passKl = 0;
      await this.guardMemory(largest, async () => {
        for (const mb of batches) {
          const mbTokens = tokenCount(mb);
          if (c.klBeta > 0 && update === 1) {
            updating.phase('reference forward', mbTokens);
            const ref = await model.forward(mb, { ...scoring, reference: true });
            splitScores(mb, ref, (it, s) => (it.ref = s));
            await updating.pausePoint();
          }
          updating.phase('forward', mbTokens);
          const lp = await model.forward(mb, scoring);
          if (update === 1) {
            splitScores(mb, lp, (it, s) => (it.old = s));
            if (exactSampler) {
              let k = 0;
              for (const it of mb) {
                for (let j = 0; j < it.old!.length; j++, k++) {
                  const sampled = it.episode.sampledLogProbs[j];
                  if (Number.isFinite(sampled)) {
                    gap += Math.abs(lp[k] - sampled);
                    gapCount++;
                  }
                }
              }
            }
          }
          const old = concat(mb.map((it) => it.old!));
          const advantages = new Float32Array(lp.length);
          let k = 0;
          for (const it of mb) for (let j = 0; j < it.old!.length; j++) advantages[k++] = it.advantage;
          const ref = c.klBeta > 0 ? concat(mb.map((it) => it.ref!)) : undefined;
          const r = pgLoss({ logProbs: lp, oldLogProbs: old, advantages, refLogProbs: ref }, c, normaliser);
          passLoss += r.loss;
          clipped += r.clipped;
          passKl += r.klSum;
          await updating.pausePoint();
          updating.phase('backward', mbTokens);
          await model.backward(r.grad);
          await updating.next(mbTokens);
        }
        gradNorm = (await model.optimizerStep(this.adamw(step, update))).gradNorm;
      });
      if (update === 1) {
        loss = passLoss;
        klSum = passKl;
      }
    }
    updating.finish();
    const t2 = performance.now();
    const metrics: StepMetrics = {
      ...this.stepMetrics(step, 'grpo', episodes, { loss, tokens, generatedTokens: N, gradNorm, microBatches: batches.length, times: [t0, t1, t2] }),
      clipFraction: N > 0 && updates > 0 ? clipped / (N * updates) : 0,
      ...(c.klBeta > 0 && { kl: N > 0 ? klSum / N : 0 }),
      zeroVarianceGroups,
      ...(gapCount > 0 && { logprobGap: gap / gapCount }),
    };
    return { metrics, episodes };
  }

  /** What every step reports; `times` are performance.now() at the step's start, after its rollout, and at its end. */
  private stepMetrics(
    step: number,
    algo: StepMetrics['algo'],
    items: ReadonlyArray<Parameters<typeof rewardMeans>[0][number] & { correct: boolean }>,
    p: { loss: number; tokens: number; generatedTokens: number; gradNorm: number; microBatches: number; times: [number, number, number] },
  ): StepMetrics {
    const [t0, t1, t2] = p.times;
    return {
      step,
      algo,
      reward: rewardMeans(items),
      loss: p.loss,
      successRate: mean(items.map((e) => (e.correct ? 1 : 0))),
      tokens: p.tokens,
      generatedTokens: p.generatedTokens,
      tokensPerSecond: p.tokens / Math.max(1e-9, (t2 - t0) / 1000),
      seconds: { rollout: (t1 - t0) / 1000, update: (t2 - t1) / 1000, total: (t2 - t0) / 1000 },
      etaSeconds: 0,
      gpuBytes: this.deps.model.gpuBytes?.() ?? null,
      gradNorm: p.gradNorm,
      lr: this.lrAt(step),
      microBatches: p.microBatches,
    };
  }

  /** The Oracle demonstrations of the train split (built on first use). */
  async sftExamples(): Promise<SftExample[]> {
    if (this.sftPool === null) {
      const c = this.config;
      const building = this.progress.begin('demonstrations', 0, `Building the Oracle's demonstrations of ${this.train.length} train questions`);
      const { examples } = await buildSftExamples(this.deps.model.tokenizer, this.createEnv, this.train, {
        thinking: c.thinking,
        maxEpisodeTokens: Math.min(c.maxEpisodeTokens, this.deps.model.contextTokens),
        rewardWeights: c.rewardWeights,
        shots: this.deps.shots,
      });
      if (examples.length === 0) throw new TrainConfigError('No Oracle demonstration fits maxEpisodeTokens: raise it.');
      this.sftPool = examples;
      building.finish();
    }
    return this.sftPool;
  }

  /** One SFT step. */
  async sftStep(step: number): Promise<{ metrics: StepMetrics; examples: SftExample[] }> {
    const c = this.config;
    const model = this.deps.model;
    const t0 = performance.now();
    const pool = await this.sftExamples();
    const examples: SftExample[] = [];
    for (let j = 0; j < c.sftExamplesPerStep; j++) {
      const k = (step - 1) * c.sftExamplesPerStep + j;
      const epoch = Math.floor(k / pool.length);
      examples.push(shuffled(createRng(deriveSeed(c.seed, 'sft-epoch', epoch)), pool)[k % pool.length]);
    }
    const t1 = performance.now();
    const N = examples.reduce((a, e) => a + maskCount(e.lossMask), 0);
    const tokens = examples.reduce((a, e) => a + e.tokenIds.length, 0);
    const batches = packMicroBatches(examples, this.limits());
    const largest = Math.max(0, ...batches.map((b) => b.reduce((a, e) => a + e.tokenIds.length, 0)));
    let loss = 0;
    let gradNorm = 0;
    const updating = this.updateProgress(step, batches.length, batches.reduce((a, mb) => a + tokenCount(mb), 0));
    await this.guardMemory(largest, async () => {
      for (const mb of batches) {
        const mbTokens = tokenCount(mb);
        updating.phase('forward', mbTokens);
        const lp = await model.forward(mb);
        const r = sftLoss(lp, N);
        loss += r.loss;
        await updating.pausePoint();
        updating.phase('backward', mbTokens);
        await model.backward(r.grad);
        await updating.next(mbTokens);
      }
      gradNorm = (await model.optimizerStep(this.adamw(step, 1))).gradNorm;
    });
    updating.finish();
    const t2 = performance.now();
    const metrics = this.stepMetrics(step, 'sft', examples, { loss, tokens, generatedTokens: N, gradNorm, microBatches: batches.length, times: [t0, t1, t2] });
    return { metrics, examples };
  }

  /**
   * Progress of an update of `total` micro-batch passes over `totalTokens` tokens (a pass: a micro-batch's forwards
   * and its backward), in reports that always reach the page (a pass can take a minute on a slow device, so each of
   * its parts is news): `phase` as a forward or backward starts, `next` when a pass is done. `pausePoint` (also run by
   * `next`) is where an update pauses and stops: a pause waits there (PausePoint 'update'; Resume goes on with the
   * next part, the gradient so far kept), a stop ends the update there (TrainInterrupted), before the optimizer step.
   */
  private updateProgress(step: number, total: number, totalTokens: number) {
    const head = `Step ${step}: update`;
    const activity = this.progress.begin('update', step, `${head}, micro-batch 0 of ${total} (${totalTokens} tokens)`, total);
    let done = 0;
    let tokensDone = 0;
    let passCostDone = 0; // of the micro-batch under way, in forward-pass units (UPDATE_PASS_COST)
    const pausePoint = async (): Promise<void> => {
      if (this.pauseRequested) await this.waitIfPaused('update');
      if (this.stopRequested) throw new TrainInterrupted('stop');
    };
    return {
      // `done` moves inside a micro-batch too, by the passes finished in it (with one micro-batch, a whole update
      // would otherwise read 0% until its end): micro-batches done + the cost done / the micro-batch's whole cost.
      phase: (pass: UpdatePass, tokens: number) => {
        const cost = passCostDone + UPDATE_PASS_COST[pass] + UPDATE_COST_AFTER[pass];
        activity.milestone(done + passCostDone / cost, total, `${head}, micro-batch ${done + 1} of ${total}: ${pass} pass (${tokens} tokens)`);
        passCostDone += UPDATE_PASS_COST[pass];
      },
      pausePoint,
      next: async (tokens: number) => {
        done++;
        passCostDone = 0;
        tokensDone += tokens;
        activity.milestone(done, total, `${head}, micro-batch ${done} of ${total} done (${tokensDone} of ${totalTokens} tokens)`);
        await pausePoint();
      },
      finish: () => activity.finish(),
    };
  }

  /** Greedy episodes on the fixed train and eval samples (interrupted by stop and pause within one decode step). */
  async evaluate(step: number): Promise<EvalPoint> {
    const settings = this.rolloutSettings(0);
    const n = this.evalTrain.length + this.evalEval.length;
    const what = step === 0 ? 'Evaluating before training' : `Evaluating after step ${step}`;
    const activity = this.progress.begin('evaluation', step, `${what}: 0 of ${n} episodes done`, n);
    const play = (questions: Question[], label: string, offset: number) =>
      questions.length === 0
        ? Promise.resolve([])
        : this.interruptible((signal) =>
            rollout(this.deps.model, this.createEnv, questions.map((question, i) => ({ question, seed: deriveSeed(this.config.seed, label, i) })), settings, this.rolloutHooks(signal, activity, what, offset, n)),
          );
    const train = await play(this.evalTrain, 'eval-train', 0);
    const evalEpisodes = await play(this.evalEval, 'eval-eval', this.evalTrain.length);
    activity.finish(`${what}: ${n} of ${n} episodes done`);
    const success = (es: RolledEpisode[]) => (es.length === 0 ? NaN : mean(es.map((e) => (e.correct ? 1 : 0))));
    return {
      step,
      trainSuccess: success(train),
      evalSuccess: success(evalEpisodes),
      trainReward: train.length === 0 ? NaN : mean(train.map((e) => e.reward)),
      evalReward: evalEpisodes.length === 0 ? NaN : mean(evalEpisodes.map((e) => e.reward)),
      trainSamples: train.length,
      evalSamples: evalEpisodes.length,
    };
  }

  private async waitIfPaused(at: PausePoint): Promise<void> {
    if (!this.pauseRequested || this.stopRequested) return;
    this.stateValue = 'paused';
    this.callbacks.onStateChange?.('paused', at);
    while (this.pauseRequested && !this.stopRequested) {
      await new Promise<void>((resolve) => (this.resumeWaiter = resolve));
      this.resumeWaiter = null;
    }
    if (!this.stopRequested) {
      this.stateValue = 'running';
      this.callbacks.onStateChange?.('running');
    }
  }

  /**
   * Runs `work` until it completes (its value) or the run is stopped (null): a pause interrupts it, waits, and runs
   * it again from its beginning.
   */
  private async attempt<T>(work: () => Promise<T>): Promise<T | null> {
    for (;;) {
      try {
        return await work();
      } catch (e) {
        if (!(e instanceof TrainInterrupted)) throw e;
        if (this.stopRequested) return null;
        await this.waitIfPaused('generation');
        if (this.stopRequested) return null;
      }
    }
  }

  /** Runs steps startStep+1 … config.steps (see the header); resolves when finished or stopped. */
  async run(options: { startStep?: number } = {}): Promise<TrainResult> {
    if (this.stateValue === 'running' || this.stateValue === 'paused') throw new Error('Trainer.run: already running');
    const c = this.config;
    const start = options.startStep ?? 0;
    const result: TrainResult = { metrics: [], evals: [], traces: [], lastStep: start, stopped: false };
    this.stopRequested = false;
    this.stateValue = 'running';
    /** False when the run was stopped during the evaluation. */
    /** Set when a stop cut the run short (a step or an evaluation it would have done is left undone). */
    let cut = false;
    const emitEval = async (step: number): Promise<boolean> => {
      const point = await this.attempt(() => this.evaluate(step));
      if (point === null) {
        cut = true;
        return false;
      }
      result.evals.push(point);
      this.callbacks.onEval?.(point);
      return true;
    };
    try {
      if (c.algo === 'grpo' && c.klBeta > 0) await this.freezeReference();
      if (c.evalEvery > 0 && start === 0) await emitEval(0);
      let seconds = 0;
      for (let step = start + 1; step <= c.steps; step++) {
        await this.waitIfPaused('between-steps');
        if (this.stopRequested) {
          cut = true;
          break;
        }
        let trace: TraceEntry | null = null;
        const wantTrace = c.traceEvery > 0 && step % c.traceEvery === 0;
        let metrics: StepMetrics | null;
        if (c.algo === 'grpo') {
          const r = await this.attempt(() => this.grpoStep(step));
          metrics = r?.metrics ?? null;
          if (r && wantTrace && r.episodes.length > 0) trace = traceFromEpisode(step, r.episodes[0]);
        } else {
          metrics = (await this.attempt(() => this.sftStep(step)))?.metrics ?? null;
        }
        if (metrics === null) {
          cut = true; // stopped during the step: nothing of it was applied
          break;
        }
        if (c.algo === 'sft' && wantTrace) {
          const traced = this.progress.begin('trace', step, `Step ${step}: a greedy episode for the trace`);
          const episodes = await this.attempt(() =>
            this.interruptible((signal) =>
              rollout(this.deps.model, this.createEnv, [{ question: this.questionsForStep(step, 1)[0], seed: deriveSeed(c.seed, 'trace', step) }], this.rolloutSettings(0), this.rolloutHooks(signal, traced, `Step ${step}: trace episode`)),
            ),
          );
          traced.finish();
          if (episodes) trace = traceFromEpisode(step, episodes[0]);
          else cut = true;
        }
        seconds += metrics.seconds.total;
        metrics.etaSeconds = (seconds / (step - start)) * (c.steps - step);
        result.metrics.push(metrics);
        result.lastStep = step;
        this.callbacks.onStep?.(metrics);
        if (trace) {
          result.traces.push(trace);
          this.callbacks.onTrace?.(trace);
        }
        if (c.evalEvery > 0 && (step % c.evalEvery === 0 || step === c.steps)) await emitEval(step);
        if (c.checkpointEvery > 0 && step % c.checkpointEvery === 0 && this.callbacks.onCheckpoint) {
          const saving = this.progress.begin('checkpoint', step, `Saving a checkpoint of step ${step}`);
          await this.callbacks.onCheckpoint(step);
          saving.finish();
        }
      }
    } catch (e) {
      this.stateValue = 'failed';
      throw e;
    }
    // Stopped even when every step was done but the final evaluation was cut: the run did not finish what it set out to.
    result.stopped = cut;
    this.stateValue = result.stopped ? 'stopped' : 'finished';
    return result;
  }
}

/** Tokens of a micro-batch (its sequences' full lengths: what its forward and backward run over). */
function tokenCount(items: ReadonlyArray<{ tokenIds: readonly number[] }>): number {
  return items.reduce((a, it) => a + it.tokenIds.length, 0);
}

function concat(parts: readonly Float32Array[]): Float32Array {
  const out = new Float32Array(parts.reduce((a, p) => a + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Hands each item of a micro-batch its slice of the batch's scores (scored order). */
function splitScores<T extends { lossMask: Uint8Array }>(items: readonly T[], scores: Float32Array, set: (item: T, s: Float32Array) => void): void {
  let at = 0;
  for (const it of items) {
    const n = maskCount(it.lossMask);
    if (at + n > scores.length) throw new MicroBatchError(`model.forward returned ${scores.length} scores for more scored tokens`, null);
    set(it, scores.slice(at, at + n));
    at += n;
  }
  if (at !== scores.length) throw new MicroBatchError(`model.forward returned ${scores.length} scores for ${at} scored tokens`, null);
}
