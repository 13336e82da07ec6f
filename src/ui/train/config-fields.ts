/**
 * The Train form as a table: every numeric `TrainConfig` setting with its label, whether it takes whole numbers,
 * which algorithm uses it, and the group it is shown in (a group with no field for the chosen algorithm is not
 * shown). The form renders from this table and the validation messages name settings by these labels, so a setting
 * added to `TrainConfig` is added here once. Which settings the two algorithms share is shared-settings.ts's table.
 */
import type { RewardWeights } from '../../env/rewards.ts';
import type { TrainAlgo, TrainConfig } from '../../train/types.ts';

/** The settings of `TrainConfig` that hold a plain number. */
export type NumericKey = { [K in keyof TrainConfig]: TrainConfig[K] extends number ? K : never }[keyof TrainConfig];
/** The settings that hold an on/off switch. */
export type SwitchKey = { [K in keyof TrainConfig]: TrainConfig[K] extends boolean ? K : never }[keyof TrainConfig];

export type SettingGroup = 'essentials' | 'loss' | 'optimizer' | 'batching' | 'reporting';

export interface NumberSetting {
  key: NumericKey;
  label: string;
  /** Whole numbers only (a step count, a token count), or any decimal (a rate, a weight). */
  whole: boolean;
  group: SettingGroup;
  /** Shown only for this algorithm (absent: both). */
  algo?: TrainAlgo;
  /** A short note under the field. */
  hint?: string;
}

export interface SwitchSetting {
  key: SwitchKey;
  label: string;
  group: SettingGroup;
  algo?: TrainAlgo;
}

export const GROUP_TITLES: Record<SettingGroup, string> = {
  essentials: 'Essentials',
  loss: 'Sampling and loss',
  optimizer: 'Optimizer',
  batching: 'Batching and LoRA',
  reporting: 'Reporting and seed',
};

export const NUMBER_SETTINGS: readonly NumberSetting[] = [
  { key: 'steps', label: 'Steps', whole: true, group: 'essentials' },
  { key: 'lr', label: 'Learning rate', whole: false, group: 'essentials' },
  { key: 'groupSize', label: 'Episodes per prompt (G)', whole: true, group: 'essentials', algo: 'grpo' },
  { key: 'promptsPerStep', label: 'Prompts per step', whole: true, group: 'essentials', algo: 'grpo' },
  { key: 'sftExamplesPerStep', label: 'Transcripts per step', whole: true, group: 'essentials', algo: 'sft' },
  { key: 'maxTurns', label: 'Max turns', whole: true, group: 'essentials' },
  { key: 'maxNewTokensPerTurn', label: 'Tokens per turn', whole: true, group: 'essentials' },
  { key: 'maxEpisodeTokens', label: 'Tokens per episode', whole: true, group: 'essentials' },

  { key: 'clipEpsLow', label: 'Clip ε low', whole: false, group: 'loss', algo: 'grpo' },
  { key: 'clipEpsHigh', label: 'Clip ε high', whole: false, group: 'loss', algo: 'grpo' },
  { key: 'klBeta', label: 'KL β', whole: false, group: 'loss', algo: 'grpo', hint: '0 = no KL to the policy the run starts from' },
  { key: 'updatesPerRollout', label: 'Updates per rollout (μ)', whole: true, group: 'loss', algo: 'grpo' },
  { key: 'temperature', label: 'Temperature', whole: false, group: 'loss', algo: 'grpo' },
  { key: 'topP', label: 'Top-p', whole: false, group: 'loss', algo: 'grpo', hint: '1 = off' },

  { key: 'warmupSteps', label: 'Warm-up steps', whole: true, group: 'optimizer' },
  { key: 'weightDecay', label: 'Weight decay', whole: false, group: 'optimizer' },
  { key: 'adamBeta1', label: 'Adam β1', whole: false, group: 'optimizer' },
  { key: 'adamBeta2', label: 'Adam β2', whole: false, group: 'optimizer' },
  { key: 'adamEps', label: 'Adam ε', whole: false, group: 'optimizer' },
  { key: 'maxGradNorm', label: 'Gradient clip (norm)', whole: false, group: 'optimizer', hint: '0 = no clipping' },

  { key: 'microBatchTokens', label: 'Micro-batch tokens', whole: true, group: 'batching', hint: '0 = from the GPU memory' },
  { key: 'loraRank', label: 'LoRA rank', whole: true, group: 'batching' },
  { key: 'loraAlpha', label: 'LoRA alpha', whole: false, group: 'batching' },

  { key: 'evalEvery', label: 'Evaluate every (steps)', whole: true, group: 'reporting', hint: '0 = never' },
  { key: 'evalTrainSamples', label: 'Train questions per evaluation', whole: true, group: 'reporting' },
  { key: 'evalEvalSamples', label: 'Eval questions per evaluation', whole: true, group: 'reporting' },
  { key: 'traceEvery', label: 'Trace every (steps)', whole: true, group: 'reporting', hint: '0 = never' },
  { key: 'checkpointEvery', label: 'Checkpoint every (steps)', whole: true, group: 'reporting', hint: '0 = never' },
  { key: 'seed', label: 'Seed', whole: true, group: 'reporting' },
];

export const SWITCH_SETTINGS: readonly SwitchSetting[] = [
  { key: 'thinking', label: 'Qwen3 thinking (episodes, demonstrations and evaluations)', group: 'essentials' },
  { key: 'stdScaling', label: 'Scale advantages by the group’s standard deviation', group: 'loss', algo: 'grpo' },
];

export const REWARD_LABELS: Record<keyof RewardWeights, string> = {
  correctness: 'Correctness weight',
  progress: 'Progress weight',
  operational: 'Operational weight',
};

/** Whether a setting shows for `algo`. */
export function shownFor(setting: { algo?: TrainAlgo }, algo: TrainAlgo): boolean {
  return setting.algo === undefined || setting.algo === algo;
}

/** Whether `group` has a field to show for `algo` (the LoRA targets sit in 'batching'): an empty group is hidden. */
export function groupHasFields(group: SettingGroup, algo: TrainAlgo): boolean {
  if (group === 'batching') return true;
  return [...NUMBER_SETTINGS, ...SWITCH_SETTINGS].some((s) => s.group === group && shownFor(s, algo));
}

/** The label of a setting named by its config key (`groupSize`) or a reward weight (`rewardWeights.progress`). */
export function settingLabel(key: string): string {
  const reward = /^rewardWeights\.(\w+)$/.exec(key);
  if (reward && reward[1] in REWARD_LABELS) return REWARD_LABELS[reward[1] as keyof RewardWeights];
  if (key === 'loraTargets') return 'LoRA targets';
  return NUMBER_SETTINGS.find((s) => s.key === key)?.label ?? SWITCH_SETTINGS.find((s) => s.key === key)?.label ?? key;
}
