/**
 * Every training setting (`TrainConfig`, types.ts) as one table: its label, a one-line description, whether it takes
 * whole numbers, which algorithm uses it (absent: both) and the group it belongs to. The Train view renders its form
 * and names settings from this table (src/ui/train/config-fields.ts re-exports it), `sqlenv train --help` prints its
 * flags and descriptions from it (src/cli/train-flags.ts), and the settings check (settings-check.ts) names the
 * setting at fault by its label. A setting added to `TrainConfig` is added here once; the typed tables below fail
 * the typecheck until it is.
 */
import type { RewardWeights } from '../env/rewards.ts';
import { LOSS_TYPES, LR_SCHEDULES, type TrainAlgo, type TrainConfig } from './types.ts';

/** The settings of `TrainConfig` that hold a plain number. */
export type NumericKey = { [K in keyof TrainConfig]: TrainConfig[K] extends number ? K : never }[keyof TrainConfig];
/** The settings that hold an on/off switch. */
export type SwitchKey = { [K in keyof TrainConfig]: TrainConfig[K] extends boolean ? K : never }[keyof TrainConfig];
/** The settings that pick one of a few named values (the algorithm aside: it is the form's first choice, not a setting). */
export type ChoiceKey = Exclude<{ [K in keyof TrainConfig]: TrainConfig[K] extends string ? K : never }[keyof TrainConfig], 'algo'>;
/** The settings that are none of these: a list, or the three reward weights. */
export type OtherKey = Exclude<keyof TrainConfig, NumericKey | SwitchKey | ChoiceKey | 'algo'>;
/** A setting as the check names it: a config key, or one reward weight (`rewardWeights.progress`). */
export type SettingField = Exclude<keyof TrainConfig, 'algo'> | `rewardWeights.${keyof RewardWeights}`;

export type SettingGroup = 'essentials' | 'loss' | 'optimizer' | 'batching' | 'reporting';

export interface NumberSetting {
  key: NumericKey;
  label: string;
  /** Whole numbers only (a step count, a token count), or any decimal (a rate, a weight). */
  whole: boolean;
  group: SettingGroup;
  /** Used only by this algorithm (absent: both). */
  algo?: TrainAlgo;
  /** A short note under the form's field. */
  hint?: string;
  /** One sentence on what it does (the view's tooltip, the CLI's help line); which algorithm uses it is `algo`'s to say. */
  description: string;
}

export interface SwitchSetting {
  key: SwitchKey;
  label: string;
  group: SettingGroup;
  algo?: TrainAlgo;
  description: string;
}

/** A choice setting with its values (one entry per key: the union keeps each key's values typed). */
export type ChoiceSetting = {
  [K in ChoiceKey]: { key: K; label: string; group: SettingGroup; algo?: TrainAlgo; description: string; choices: ReadonlyArray<TrainConfig[K]> };
}[ChoiceKey];

export interface OtherSetting {
  key: OtherKey;
  label: string;
  group: SettingGroup;
  algo?: TrainAlgo;
  description: string;
}

export const GROUP_TITLES: Record<SettingGroup, string> = {
  essentials: 'Essentials',
  loss: 'Sampling and loss',
  optimizer: 'Optimizer',
  batching: 'Batching and LoRA',
  reporting: 'Reporting and seed',
};

export const NUMBER_SETTINGS: readonly NumberSetting[] = [
  { key: 'steps', label: 'Steps', whole: true, group: 'essentials', description: 'Optimisation steps of the run.' },
  { key: 'lr', label: 'Learning rate', whole: false, group: 'essentials', description: 'Learning rate of AdamW for the LoRA adapter.' },
  { key: 'groupSize', label: 'Episodes per prompt (G)', whole: true, group: 'essentials', algo: 'grpo', description: 'Episodes sampled per question; advantages compare the episodes of a group.' },
  { key: 'promptsPerStep', label: 'Prompts per step', whole: true, group: 'essentials', algo: 'grpo', description: 'Questions per step, each played by a group of episodes.' },
  { key: 'sftExamplesPerStep', label: 'Transcripts per step', whole: true, group: 'essentials', algo: 'sft', description: 'Oracle transcripts the model learns from per step.' },
  { key: 'maxTurns', label: 'Max turns', whole: true, group: 'essentials', description: 'The most actions per episode (the environment’s step budget during training).' },
  { key: 'maxNewTokensPerTurn', label: 'Tokens per turn', whole: true, group: 'essentials', description: 'The most tokens the model may write in one turn.' },
  { key: 'maxEpisodeTokens', label: 'Tokens per episode', whole: true, group: 'essentials', description: 'The most tokens of one episode (prompt, actions and observations).' },

  { key: 'clipEpsLow', label: 'Clip ε low', whole: false, group: 'loss', algo: 'grpo', description: 'The probability ratio is clipped below at 1 − ε low.' },
  { key: 'clipEpsHigh', label: 'Clip ε high', whole: false, group: 'loss', algo: 'grpo', description: 'The probability ratio is clipped above at 1 + ε high.' },
  {
    key: 'klBeta',
    label: 'KL β',
    whole: false,
    group: 'loss',
    algo: 'grpo',
    hint: '0 = no KL to the policy the run starts from',
    description: 'Weight of the KL penalty that keeps the model near the policy the run started from — the base model for a fresh adapter, the warmed-up or loaded adapter otherwise (0 = none).',
  },
  { key: 'updatesPerRollout', label: 'Updates per rollout (μ)', whole: true, group: 'loss', algo: 'grpo', description: 'Gradient updates on each batch of rollouts (μ).' },
  { key: 'temperature', label: 'Temperature', whole: false, group: 'loss', algo: 'grpo', description: 'Sampling temperature of the rollouts: higher gives more varied episodes.' },
  { key: 'topP', label: 'Top-p', whole: false, group: 'loss', algo: 'grpo', hint: '1 = off', description: 'Nucleus sampling of the rollouts: only the likeliest tokens adding up to p (1 = off).' },

  { key: 'warmupSteps', label: 'Warm-up steps', whole: true, group: 'optimizer', description: 'Steps over which the learning rate rises from 0 to its value.' },
  { key: 'weightDecay', label: 'Weight decay', whole: false, group: 'optimizer', description: 'AdamW’s decoupled weight decay on the adapter.' },
  { key: 'adamBeta1', label: 'Adam β1', whole: false, group: 'optimizer', description: 'AdamW’s decay rate of the gradient’s running mean.' },
  { key: 'adamBeta2', label: 'Adam β2', whole: false, group: 'optimizer', description: 'AdamW’s decay rate of the squared gradient’s running mean.' },
  { key: 'adamEps', label: 'Adam ε', whole: false, group: 'optimizer', description: 'AdamW’s small constant that keeps the division stable.' },
  { key: 'maxGradNorm', label: 'Gradient clip (norm)', whole: false, group: 'optimizer', hint: '0 = no clipping', description: 'Gradients are scaled down when their global norm exceeds this (0 = no clipping).' },

  { key: 'microBatchTokens', label: 'Micro-batch tokens', whole: true, group: 'batching', hint: '0 = from the GPU memory', description: 'Tokens per forward/backward pass; gradients accumulate over micro-batches (0 = sized from GPU memory).' },
  { key: 'loraRank', label: 'LoRA rank', whole: true, group: 'batching', description: 'Rank r of the LoRA adapter: larger learns more and uses more memory.' },
  { key: 'loraAlpha', label: 'LoRA alpha', whole: false, group: 'batching', description: 'LoRA scaling: the adapter’s update is multiplied by alpha / rank.' },

  { key: 'evalEvery', label: 'Evaluate every (steps)', whole: true, group: 'reporting', hint: '0 = never', description: 'Run greedy evaluation episodes every this many steps (0 = never).' },
  { key: 'evalTrainSamples', label: 'Train questions per evaluation', whole: true, group: 'reporting', description: 'Train questions played at each evaluation.' },
  { key: 'evalEvalSamples', label: 'Eval questions per evaluation', whole: true, group: 'reporting', description: 'Eval questions played at each evaluation.' },
  { key: 'traceEvery', label: 'Trace every (steps)', whole: true, group: 'reporting', hint: '0 = never', description: 'Keep one execution trace every this many steps (0 = never).' },
  { key: 'checkpointEvery', label: 'Checkpoint every (steps)', whole: true, group: 'reporting', hint: '0 = never', description: 'Save the adapter and optimiser state every this many steps, to resume later (0 = never).' },
  { key: 'seed', label: 'Seed', whole: true, group: 'reporting', description: 'Seed of the run: the same seed and settings give the same run.' },
];

export const SWITCH_SETTINGS: readonly SwitchSetting[] = [
  {
    key: 'thinking',
    label: 'Qwen3 thinking (episodes, demonstrations and evaluations)',
    group: 'essentials',
    description: 'Let Qwen3 write its reasoning before each action: in rollouts, in evaluations and in the SFT demonstration prompts (more tokens).',
  },
  { key: 'stdScaling', label: 'Scale advantages by the group’s standard deviation', group: 'loss', algo: 'grpo', description: 'Divide each advantage by the standard deviation of its group’s rewards.' },
];

export const CHOICE_SETTINGS: readonly ChoiceSetting[] = [
  {
    key: 'lossType',
    label: 'Loss normaliser',
    group: 'loss',
    algo: 'grpo',
    choices: LOSS_TYPES,
    description: 'What divides the loss: dapo, the batch’s model tokens; dr_grpo, a constant (episodes × max turns × tokens per turn).',
  },
  {
    key: 'lrSchedule',
    label: 'Learning-rate schedule',
    group: 'optimizer',
    choices: LR_SCHEDULES,
    description: 'After the warm-up: constant keeps the learning rate; linear lowers it step by step to zero at the end of the run (TRL’s default).',
  },
];

/** The settings the form shows with their own widgets (the reward weights one field each, the LoRA targets as boxes). */
export const OTHER_SETTINGS: readonly OtherSetting[] = [
  { key: 'rewardWeights', label: 'Reward weights', group: 'essentials', description: 'Weights of correctness, progress and operational in the training reward.' },
  { key: 'loraTargets', label: 'LoRA targets', group: 'batching', description: 'The projections that get a LoRA adapter.' },
];

export const REWARD_LABELS: Record<keyof RewardWeights, string> = {
  correctness: 'Correctness weight',
  progress: 'Progress weight',
  operational: 'Operational weight',
};

export const REWARD_DESCRIPTIONS: Record<keyof RewardWeights, string> = {
  correctness: 'Weight of correctness (1 for a correct answer) in the training reward.',
  progress: 'Weight of progress (getting closer to the gold result) in the training reward.',
  operational: 'Weight of operational (information, repeats, errors, step cost) in the training reward.',
};

/** The label of a setting named by its config key (`groupSize`) or a reward weight (`rewardWeights.progress`). */
export function settingLabel(key: string): string {
  const reward = /^rewardWeights\.(\w+)$/.exec(key);
  if (reward && reward[1] in REWARD_LABELS) return REWARD_LABELS[reward[1] as keyof RewardWeights];
  return [...NUMBER_SETTINGS, ...SWITCH_SETTINGS, ...CHOICE_SETTINGS, ...OTHER_SETTINGS].find((s) => s.key === key)?.label ?? key;
}
