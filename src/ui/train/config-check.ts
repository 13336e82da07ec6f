/**
 * Checks a Train form's settings before a run starts, with the trainer's own rules (`validateTrainConfig`, the
 * environment's `validateRewardWeights`) plus the few the optimizer and LoRA need that the trainer assumes, and
 * names the setting at fault by its label. (A stored form is filled up to a whole `TrainConfig` by shared-settings.ts.)
 */
import { validateRewardWeights } from '../../env/rewards.ts';
import { LORA_TARGETS } from '../../model/lora.ts';
import { validateTrainConfig } from '../../train/trainer.ts';
import type { TrainConfig } from '../../train/types.ts';
import { NUMBER_SETTINGS, settingLabel } from './config-fields.ts';

export interface ConfigProblem {
  /** The setting at fault: a config key, or `rewardWeights.<part>`. */
  key: string;
  /** What is wrong, starting with the setting's label. */
  message: string;
}

/** The setting a validation message is about: a quoted reward weight, else the setting key it names first. */
function keyNamedIn(message: string): string {
  const weight = /Reward weight '(\w+)'/.exec(message);
  if (weight) return `rewardWeights.${weight[1]}`;
  if (message.includes('correctness weight')) return 'rewardWeights.correctness';
  let best = { key: '', at: Infinity };
  for (const { key } of NUMBER_SETTINGS) {
    const at = message.search(new RegExp(`\\b${key}\\b`));
    if (at >= 0 && at < best.at) best = { key, at };
  }
  return best.key;
}

/** Rules the trainer takes for granted: AdamW's betas and ε, a positive alpha, a known LoRA target, a whole seed. */
function extraProblem(c: TrainConfig): ConfigProblem | null {
  for (const key of ['adamBeta1', 'adamBeta2'] as const) {
    if (!(c[key] >= 0 && c[key] < 1)) return { key, message: `${settingLabel(key)} must be in [0, 1), got ${c[key]}.` };
  }
  if (!(c.adamEps > 0 && Number.isFinite(c.adamEps))) return { key: 'adamEps', message: `${settingLabel('adamEps')} must be a number > 0, got ${c.adamEps}.` };
  if (!(c.loraAlpha > 0 && Number.isFinite(c.loraAlpha))) return { key: 'loraAlpha', message: `${settingLabel('loraAlpha')} must be a number > 0, got ${c.loraAlpha}.` };
  if (c.loraTargets.length === 0) return { key: 'loraTargets', message: 'Pick at least one LoRA target projection.' };
  const unknown = c.loraTargets.find((t) => !LORA_TARGETS.includes(t));
  if (unknown !== undefined) return { key: 'loraTargets', message: `Unknown LoRA target '${unknown}'; the targets are ${LORA_TARGETS.join(', ')}.` };
  if (!Number.isSafeInteger(c.seed) || c.seed < 0) return { key: 'seed', message: `${settingLabel('seed')} must be a whole number ≥ 0, got ${c.seed}.` };
  return null;
}

/** The first problem of `config`, or null when a run may start with it. */
export function configProblem(config: TrainConfig): ConfigProblem | null {
  try {
    validateTrainConfig(config);
    validateRewardWeights(config.rewardWeights, config.maxTurns);
  } catch (e) {
    const text = e instanceof Error ? e.message : String(e);
    const key = keyNamedIn(text);
    return { key, message: key === '' ? text : `${settingLabel(key)}: ${text}` };
  }
  return extraProblem(config);
}
