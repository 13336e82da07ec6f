/**
 * The training contract: every setting of a run (`TrainConfig`, with defaults sized for Qwen3-0.6B + LoRA on a
 * laptop GPU), and what a run reports (`StepMetrics` per optimizer step, `EvalPoint` every `evalEvery` steps,
 * `TraceEntry` every `traceEvery` steps). The Train view renders these types and the trainer produces them, so they
 * stay stable: add optional fields, never rename or remove.
 *
 * Units: learning rates per optimizer step; token counts in model tokens; seconds of wall time; bytes of GPU memory.
 */
import { DEFAULT_REWARD_WEIGHTS, type RewardComponents, type RewardWeights } from '../env/rewards.ts';
import type { StepOutcome } from '../env/types.ts';
import { DEFAULT_CONTEXT_TOKENS } from '../model/context.ts';
import type { LoraTarget } from '../model/lora.ts';
import { PROJECTIONS } from '../model/weights.ts';

export type TrainAlgo = 'sft' | 'grpo';

/**
 * How GRPO's loss is normalised, as TRL's `loss_type` of the same name: 'dapo' divides by the batch's N model tokens;
 * 'dr_grpo' by a constant, episodes × maxTurns × maxNewTokensPerTurn (the most model tokens the step's episodes can
 * have; TRL: completions × max_completion_length), so no episode's weight depends on the others' lengths.
 */
export type LossType = 'dapo' | 'dr_grpo';
export const LOSS_TYPES: readonly LossType[] = ['dapo', 'dr_grpo'];

/**
 * The learning rate over a run after its warm-up (src/train/lr-schedule.ts): 'constant' keeps `lr`; 'linear' decays it
 * to zero at the end of the run, as transformers' (and so TRL's) default `lr_scheduler_type="linear"`.
 */
export type LrSchedule = 'constant' | 'linear';
export const LR_SCHEDULES: readonly LrSchedule[] = ['constant', 'linear'];

export interface TrainConfig {
  algo: TrainAlgo;
  /** Optimizer steps of the run. */
  steps: number;
  /** AdamW learning rate: the peak, reached after `warmupSteps` of linear warm-up; `lrSchedule` says what follows. */
  lr: number;
  /** Linear warm-up from 0 to `lr` over this many steps; 0 = none. */
  warmupSteps: number;
  /** After the warm-up: `lr` to the end ('constant') or a linear decay to zero at the last step ('linear'). */
  lrSchedule: LrSchedule;
  weightDecay: number;
  adamBeta1: number;
  adamBeta2: number;
  adamEps: number;
  /** Global L2 norm the adapter gradient is clipped to before the step; 0 = no clipping. */
  maxGradNorm: number;
  /** Seeds the prompt order, sampling and the adapter's init: one seed, one run. */
  seed: number;

  // ---- GRPO ----
  /** G: episodes sampled per prompt (the group advantages are normalised over). */
  groupSize: number;
  /** Prompts (questions) per optimizer step; G × this episodes per step. */
  promptsPerStep: number;
  /** Policy-gradient passes over one step's rollouts (μ); > 1 makes the clip matter. */
  updatesPerRollout: number;
  /** Environment steps per episode (the env's step budget while training). */
  maxTurns: number;
  /** Per-turn token limit of the model's reply. */
  maxNewTokensPerTurn: number;
  /** Tokens of one whole episode (prompt, replies, tool results); the env's observations are truncated to fit. */
  maxEpisodeTokens: number;
  /** Sampling temperature of rollouts (1 = the policy's own distribution). */
  temperature: number;
  /** Nucleus sampling of rollouts; 1 = off (log-probs are then exactly the policy's). */
  topP: number;
  /** Lower clip of the ratio: r ≥ 1 − clipEpsLow. */
  clipEpsLow: number;
  /** Upper clip of the ratio: r ≤ 1 + clipEpsHigh (DAPO's clip-higher). */
  clipEpsHigh: number;
  /**
   * Weight of the k3 KL estimate to the reference policy: the policy the run started from, frozen (the base model
   * for a fresh adapter; the warmed-up or loaded adapter otherwise, as TRL anchors a PEFT adapter); 0 = no KL term
   * (no reference forward).
   */
  klBeta: number;
  /** Divide advantages by the group's reward standard deviation (GRPO); off = mean-centred only (Dr. GRPO's advantage). */
  stdScaling: boolean;
  /** The loss's normaliser (see `LossType`); Dr. GRPO is stdScaling off with 'dr_grpo'. */
  lossType: LossType;
  /** Weights of the reward components summed into the episode's reward (the env's own defaults). */
  rewardWeights: RewardWeights;
  /** Qwen3 thinking during rollouts. */
  thinking: boolean;

  // ---- SFT ----
  /** Oracle transcripts per optimizer step. */
  sftExamplesPerStep: number;

  // ---- Batching ----
  /** Tokens per micro-batch (forward + backward at once); 0 = derive from the device's memory. */
  microBatchTokens: number;

  // ---- Reporting ----
  /** Evaluate success on small train and eval samples every M steps (and at step 0); 0 = never. */
  evalEvery: number;
  /** Questions of the train split per evaluation. */
  evalTrainSamples: number;
  /** Questions of the eval split per evaluation. */
  evalEvalSamples: number;
  /** Record an execution trace every N steps; 0 = never. */
  traceEvery: number;
  /** Save a checkpoint every K steps; 0 = never. */
  checkpointEvery: number;

  // ---- LoRA ----
  loraRank: number;
  loraAlpha: number;
  loraTargets: LoraTarget[];
}

export const DEFAULT_TRAIN_CONFIG: TrainConfig = {
  algo: 'grpo',
  steps: 200,
  lr: 5e-5,
  warmupSteps: 5,
  lrSchedule: 'constant',
  weightDecay: 0,
  adamBeta1: 0.9,
  adamBeta2: 0.99,
  adamEps: 1e-8,
  maxGradNorm: 1,
  seed: 0,
  groupSize: 4,
  promptsPerStep: 2,
  updatesPerRollout: 1,
  maxTurns: 6,
  maxNewTokensPerTurn: 128,
  // Episodes as long as the context the policy plays in after training (model/context.ts).
  maxEpisodeTokens: DEFAULT_CONTEXT_TOKENS,
  temperature: 1,
  topP: 1,
  clipEpsLow: 0.2,
  clipEpsHigh: 0.28,
  klBeta: 0,
  stdScaling: true,
  lossType: 'dapo',
  rewardWeights: { ...DEFAULT_REWARD_WEIGHTS },
  thinking: false,
  sftExamplesPerStep: 4,
  microBatchTokens: 0,
  evalEvery: 10,
  evalTrainSamples: 8,
  evalEvalSamples: 8,
  traceEvery: 5,
  checkpointEvery: 25,
  loraRank: 16,
  loraAlpha: 32,
  loraTargets: [...PROJECTIONS],
};

/** SFT warm-up defaults differ only where a supervised loss wants them to. */
export const DEFAULT_SFT_CONFIG: TrainConfig = { ...DEFAULT_TRAIN_CONFIG, algo: 'sft', steps: 50, lr: 2e-4 };

/** Mean reward per episode, by component (unweighted) and in total (weighted with `rewardWeights`). */
export interface RewardMeans extends RewardComponents {
  total: number;
}

export interface StepMetrics {
  /** 1-based optimizer step. */
  step: number;
  algo: TrainAlgo;
  /** GRPO: mean over the step's episodes. SFT: the Oracle transcripts' (correctness 1 when the Oracle is right). */
  reward: RewardMeans;
  /** The loss of the step's first update (GRPO: clipped PG + β·KL over the loss's normaliser; SFT: mean NLL per assistant token). */
  loss: number;
  /** Fraction of the step's episodes answered correctly. */
  successRate: number;
  /** Tokens the update processed (every position of every sequence). */
  tokens: number;
  /** Of which the model generated (loss-masked in). */
  generatedTokens: number;
  /** `tokens` over the step's total seconds. */
  tokensPerSecond: number;
  seconds: { rollout: number; update: number; total: number };
  /** Estimated seconds to the last step at the mean pace so far. */
  etaSeconds: number;
  /** GPU memory in use after the step; null where the model cannot tell (CPU reference). */
  gpuBytes: number | null;
  /** Adapter gradient norm before clipping. */
  gradNorm: number;
  /** Learning rate used this step (after warm-up). */
  lr: number;
  /** GRPO: fraction of loss tokens whose ratio was clipped, over all the step's updates (0 with one update). */
  clipFraction?: number;
  /** GRPO with klBeta > 0: mean k3 KL per loss token of the sampling policy to the reference policy (the first update's). */
  kl?: number;
  /** GRPO: groups whose rewards were all equal (their advantages are 0). */
  zeroVarianceGroups?: number;
  /** Micro-batches the step's update ran in. */
  microBatches: number;
  /**
   * GRPO without top-p, at any temperature: mean |log-prob the trainer computes − log-prob the sampler reported| over
   * the generated tokens, both under softmax(logits / temperature) (the sampler/trainer mismatch; ~1e-6 on the CPU
   * reference, small on the GPU).
   */
  logprobGap?: number;
}

/** Success rates of greedy episodes on small fixed samples of each split. */
export interface EvalPoint {
  step: number;
  trainSuccess: number;
  evalSuccess: number;
  /** Mean weighted reward on each sample. */
  trainReward?: number;
  evalReward?: number;
  trainSamples?: number;
  evalSamples?: number;
}

/** One action of a traced episode: what the model wrote, what the env made of it, and what it earned. */
export interface TraceAction {
  /** The model's raw reply (thinking included). */
  rawText: string;
  /** The action as the env parsed it, canonical text (`QUERY SELECT …`, `INVALID: reason`). */
  action: string;
  outcome: StepOutcome;
  /** The observation text (truncated for display). */
  observation: string;
  reward: number;
  components: RewardComponents;
}

export interface TraceEntry {
  step: number;
  questionId: string;
  question: string;
  dbId: string;
  actions: TraceAction[];
  correct: boolean;
  /** Weighted total reward of the episode. */
  reward: number;
}

/**
 * What a run is doing now, for a progress bar and an estimate: `done` of `total` in the activity's own unit, and
 * the seconds left of this activity at the rate measured so far (null until there is a rate). Rollouts and
 * evaluations count episodes (a finished episode is 1, a live one its turns and tokens so far, so the bar moves with
 * every decode step); updates count micro-batches.
 */
export interface TrainProgress {
  activity: TrainActivity;
  /** The step this activity belongs to (0: before training). */
  step: number;
  /** The sentence shown, e.g. "Evaluating before training: episode 3 of 16 · turn 2 of 6 · 340 tokens". */
  text: string;
  done: number;
  total: number;
  /** Tokens generated so far in this activity (rollouts and evaluations). */
  tokens?: number;
  /** Seconds since this activity began. */
  elapsedSeconds: number;
  /** Seconds left of this activity at the measured rate; null until measurable. */
  etaSeconds: number | null;
}

export type TrainActivity = 'loading' | 'evaluation' | 'rollout' | 'demonstrations' | 'update' | 'trace' | 'checkpoint';
