/**
 * The one check of a run's settings, used by the Train view before Start (src/ui/train/config-check.ts), by
 * `sqlenv train` before anything is read (src/cli/train-flags.ts), and by the trainer and the training worker
 * (trainer.ts's `validateTrainConfig`, src/workers/train-service.ts) as a last line of defence. Each problem carries
 * the setting at fault as a field (a config key or `rewardWeights.<part>`) and a sentence that starts with its label
 * (settings-table.ts), so no caller reads the setting back out of the text.
 *
 * The rules: counts are whole numbers > 0 (or ≥ 0 where 0 switches a thing off), rates and weights finite and ≥ 0,
 * GRPO compares at least two episodes of a prompt and samples at a temperature > 0, top-p in (0, 1], clip ε low
 * below 1, AdamW's betas in [0, 1) and ε > 0, LoRA alpha > 0 with known targets, a whole seed ≥ 0, each choice
 * (loss normaliser, learning-rate schedule) one of its values, and the
 * environment's reward rule (src/env/rewards.ts: no negative weight, a correct answer always outweighs shaping).
 */
import { rewardPropertyViolations, type RewardWeights } from '../env/rewards.ts';
import { LORA_TARGETS } from '../model/lora.ts';
import { CHOICE_SETTINGS, NUMBER_SETTINGS, REWARD_LABELS, settingLabel, type NumericKey, type SettingField } from './settings-table.ts';
import type { TrainConfig } from './types.ts';

export interface SettingsProblem {
  /** The setting at fault. */
  field: SettingField;
  /** What is wrong, as a sentence starting with the setting's label. */
  message: string;
}

/** A run's settings broke a rule; `field` names the setting (absent for a problem of the data, not a setting). */
export class TrainConfigError extends Error {
  override name = 'TrainConfigError';
  constructor(
    message: string,
    readonly field?: SettingField,
  ) {
    super(message);
  }
}

/** Counts where 0 is no use: a run of 0 steps, a LoRA of rank 0. */
const POSITIVE: readonly NumericKey[] = ['steps', 'groupSize', 'promptsPerStep', 'updatesPerRollout', 'maxTurns', 'maxNewTokensPerTurn', 'maxEpisodeTokens', 'sftExamplesPerStep', 'loraRank'];

function problem(field: SettingField, rule: string): SettingsProblem {
  return { field, message: `${settingLabel(field)} ${rule}` };
}

/** The range rules of the numeric settings, in the table's order. */
function numberProblems(c: TrainConfig): SettingsProblem[] {
  const out: SettingsProblem[] = [];
  for (const { key, whole } of NUMBER_SETTINGS) {
    const v = c[key];
    const positive = POSITIVE.includes(key);
    if (whole && !(Number.isSafeInteger(v) && (positive ? v > 0 : v >= 0))) out.push(problem(key, `must be a whole number ${positive ? '> 0' : '≥ 0'}, got ${v}.`));
    else if (!whole && !(Number.isFinite(v) && v >= 0)) out.push(problem(key, `must be a finite number ≥ 0, got ${v}.`));
  }
  return out;
}

/** The rules that tie a setting to its meaning (beyond its range), each checked once its range holds. */
function meaningProblems(c: TrainConfig, rangeFaults: ReadonlySet<string>): SettingsProblem[] {
  const out: SettingsProblem[] = [];
  const ok = (key: NumericKey): boolean => !rangeFaults.has(key);
  if (c.algo === 'grpo' && ok('groupSize') && c.groupSize < 2) out.push(problem('groupSize', `must be at least 2 for GRPO: advantages compare episodes of one prompt, got ${c.groupSize}.`));
  if (c.algo === 'grpo' && ok('temperature') && c.temperature <= 0) out.push(problem('temperature', 'must be > 0 for GRPO: its rollouts are sampled.'));
  if (ok('topP') && !(c.topP > 0 && c.topP <= 1)) out.push(problem('topP', `must be in (0, 1] (1 = off), got ${c.topP}.`));
  if (ok('clipEpsLow') && c.clipEpsLow >= 1) out.push(problem('clipEpsLow', `must be below 1 (the ratio is clipped below at 1 − ε), got ${c.clipEpsLow}.`));
  for (const key of ['adamBeta1', 'adamBeta2'] as const) if (ok(key) && c[key] >= 1) out.push(problem(key, `must be in [0, 1), got ${c[key]}.`));
  if (ok('adamEps') && c.adamEps <= 0) out.push(problem('adamEps', `must be > 0 (it keeps AdamW's division finite), got ${c.adamEps}.`));
  if (ok('loraAlpha') && c.loraAlpha <= 0) out.push(problem('loraAlpha', `must be > 0 (the adapter is scaled by alpha / rank), got ${c.loraAlpha}.`));
  return out;
}

function choiceProblems(c: TrainConfig): SettingsProblem[] {
  const out: SettingsProblem[] = [];
  for (const { key, choices } of CHOICE_SETTINGS) {
    const value: unknown = c[key];
    if (!(choices as readonly unknown[]).includes(value)) out.push(problem(key, `must be ${choices.join(' or ')}, got ${String(value)}.`));
  }
  if (!Array.isArray(c.loraTargets) || c.loraTargets.length === 0) out.push(problem('loraTargets', `need at least one projection of ${LORA_TARGETS.join(', ')}.`));
  else {
    const unknown = c.loraTargets.find((t) => !LORA_TARGETS.includes(t));
    if (unknown !== undefined) out.push(problem('loraTargets', `must be among ${LORA_TARGETS.join(', ')}, got '${String(unknown)}'.`));
  }
  return out;
}

/** The environment's reward rule; its sentences are the env's own, placed under the weight they are about. */
function rewardProblems(c: TrainConfig, maxTurnsOk: boolean): SettingsProblem[] {
  // Every part is checked here, a missing one included (the env's rule reads only the parts present).
  const parts = Object.keys(REWARD_LABELS) as Array<keyof RewardWeights>;
  const weight = (p: keyof RewardWeights): number | undefined => (c.rewardWeights as Partial<RewardWeights> | undefined)?.[p];
  const bad = parts.filter((p) => !(Number.isFinite(weight(p)) && (weight(p) ?? -1) >= 0));
  if (bad.length > 0) {
    return bad.map((p) => problem(`rewardWeights.${p}`, `must be a finite number ≥ 0, got ${weight(p)}: a negative weight pays for errors, repeats or stalling.`));
  }
  // The budget is maxTurns, whose own rule is reported above; the dominance rule needs a valid one.
  if (!maxTurnsOk) return [];
  return rewardPropertyViolations(c.rewardWeights, c.maxTurns).map((text) => ({ field: 'rewardWeights.correctness', message: `${settingLabel('rewardWeights.correctness')}: ${text}` }));
}

/** Every problem of `config`, in a fixed order (the table's order for ranges); empty when a run may start. */
export function settingsProblems(config: TrainConfig): SettingsProblem[] {
  const ranges = numberProblems(config);
  const rangeFaults = new Set<string>(ranges.map((p) => p.field));
  return [...ranges, ...meaningProblems(config, rangeFaults), ...choiceProblems(config), ...rewardProblems(config, !rangeFaults.has('maxTurns'))];
}

/** The first problem of `config`, or null when a run may start with it. */
export function firstSettingsProblem(config: TrainConfig): SettingsProblem | null {
  return settingsProblems(config)[0] ?? null;
}

/** Throws `TrainConfigError` with the first problem of `config` (its field attached); returns when there is none. */
export function assertValidSettings(config: TrainConfig): void {
  const first = firstSettingsProblem(config);
  if (first) throw new TrainConfigError(first.message, first.field);
}
