/**
 * The Train form's settings as the page keeps them: one value for every setting SFT and GRPO share (the episode
 * limits, LoRA, optimizer, reporting, seed, reward weights…), and for each algorithm only what is its own (GRPO's
 * group, sampling and clipping; SFT's transcripts per step; and each one's steps and learning rate, whose defaults
 * differ because a supervised loss wants a shorter run at a higher rate). Switching algorithm therefore brings back
 * that algorithm's own values and keeps every shared one as it was set.
 *
 * How to think about it: `TrainSettings` is the stored shape; `configFor` makes the whole `TrainConfig` of one
 * algorithm from it; `patchSettings` routes each edited field to the shared part or the algorithm's own. A stored
 * form may be older (one whole config per algorithm, before this split) or lack newer fields: `readTrainSettings`
 * reads any of them, losing no edit. Pure module: no store, no React, no trainer (the store imports it).
 */
import { DEFAULT_SFT_CONFIG, DEFAULT_TRAIN_CONFIG, type TrainAlgo, type TrainConfig } from '../../train/types.ts';

/** Each algorithm's default config. */
export const TRAIN_DEFAULTS: Record<TrainAlgo, TrainConfig> = { sft: DEFAULT_SFT_CONFIG, grpo: DEFAULT_TRAIN_CONFIG };

/** Settings with one value for both algorithms. */
export const SHARED_KEYS = [
  'warmupSteps',
  'lrSchedule',
  'weightDecay',
  'adamBeta1',
  'adamBeta2',
  'adamEps',
  'maxGradNorm',
  'seed',
  'maxTurns',
  'maxNewTokensPerTurn',
  'maxEpisodeTokens',
  'rewardWeights',
  'thinking',
  'microBatchTokens',
  'evalEvery',
  'evalTrainSamples',
  'evalEvalSamples',
  'traceEvery',
  'checkpointEvery',
  'loraRank',
  'loraAlpha',
  'loraTargets',
] as const satisfies ReadonlyArray<keyof TrainConfig>;

/** Settings each algorithm keeps for itself (`steps` and `lr` are in both lists: one value per algorithm). */
export const OWN_KEYS = {
  sft: ['steps', 'lr', 'sftExamplesPerStep'],
  grpo: ['steps', 'lr', 'groupSize', 'promptsPerStep', 'updatesPerRollout', 'temperature', 'topP', 'clipEpsLow', 'clipEpsHigh', 'klBeta', 'stdScaling', 'lossType'],
} as const satisfies Record<TrainAlgo, ReadonlyArray<keyof TrainConfig>>;

export type SharedKey = (typeof SHARED_KEYS)[number];
export type OwnKey<A extends TrainAlgo> = (typeof OWN_KEYS)[A][number];

export interface TrainSettings {
  shared: Pick<TrainConfig, SharedKey>;
  own: { [A in TrainAlgo]: Pick<TrainConfig, OwnKey<A>> };
}

/** Holds only when `T` is never: the two checks below fail the typecheck when a setting is misplaced. */
type Never<T extends never> = T;
/** Every setting of `TrainConfig` is shared or some algorithm's own (a new field must be placed above). */
export type EverySettingPlaced = Never<Exclude<keyof TrainConfig, 'algo' | SharedKey | OwnKey<TrainAlgo>>>;
/** No setting is both shared and an algorithm's own. */
export type NoSettingTwice = Never<Extract<SharedKey, OwnKey<TrainAlgo>>>;

/** The fields `keys` of `config`. */
function pick<K extends keyof TrainConfig>(config: TrainConfig, keys: readonly K[]): Pick<TrainConfig, K> {
  const out = {} as Pick<TrainConfig, K>;
  for (const key of keys) out[key] = config[key];
  return out;
}

export const DEFAULT_TRAIN_SETTINGS: TrainSettings = {
  shared: pick(DEFAULT_TRAIN_CONFIG, SHARED_KEYS),
  own: { sft: pick(DEFAULT_SFT_CONFIG, OWN_KEYS.sft), grpo: pick(DEFAULT_TRAIN_CONFIG, OWN_KEYS.grpo) },
};

/** Whether `key` is shared by both algorithms. */
export function isShared(key: keyof TrainConfig): boolean {
  return (SHARED_KEYS as ReadonlyArray<keyof TrainConfig>).includes(key);
}

/** `defaults`, with each field `stored` holds with the same type (NaN included: a cleared field, for the check). */
function filled<T extends object>(stored: unknown, defaults: T): T {
  const out = { ...defaults };
  if (typeof stored !== 'object' || stored === null) return out;
  for (const key of Object.keys(defaults) as Array<keyof T>) {
    const value = (stored as Partial<T>)[key];
    if (value !== undefined && value !== null && typeof value === typeof defaults[key] && Array.isArray(value) === Array.isArray(defaults[key])) out[key] = value;
  }
  return out;
}

/** A whole config from a stored one (localStorage, perhaps written by an older version): the rest from `defaults`. */
export function completeConfig(stored: unknown, defaults: TrainConfig): TrainConfig {
  const weights = typeof stored === 'object' && stored !== null ? (stored as { rewardWeights?: unknown }).rewardWeights : undefined;
  return { ...filled(stored, defaults), rewardWeights: filled(weights, defaults.rewardWeights), algo: defaults.algo };
}

/** The whole config of `algo`: its defaults, overlaid by the shared settings and its own. */
export function configFor(settings: TrainSettings, algo: TrainAlgo): TrainConfig {
  return completeConfig({ ...settings.shared, ...settings.own[algo] }, TRAIN_DEFAULTS[algo]);
}

/** `settings` made from `config`: its shared fields for both algorithms, its own for `config.algo`. */
function fromConfig(settings: TrainSettings, config: TrainConfig): TrainSettings {
  const shared = pick(config, SHARED_KEYS);
  return config.algo === 'sft' ? { shared, own: { ...settings.own, sft: pick(config, OWN_KEYS.sft) } } : { shared, own: { ...settings.own, grpo: pick(config, OWN_KEYS.grpo) } };
}

/** `settings` after editing `algo`'s form: shared fields change for both algorithms, the others for `algo` only. */
export function patchSettings(settings: TrainSettings, algo: TrainAlgo, patch: Partial<TrainConfig>): TrainSettings {
  return fromConfig(settings, { ...configFor(settings, algo), ...patch, algo });
}

/** "Reset to defaults" under `algo`: the shared settings and `algo`'s own; the other algorithm's own stay. */
export function resetSettings(settings: TrainSettings, algo: TrainAlgo): TrainSettings {
  return fromConfig(settings, TRAIN_DEFAULTS[algo]);
}

/** What this module reads of a stored Train form (any version). */
export interface StoredSettingsForm {
  algo: TrainAlgo;
  settings?: TrainSettings;
  /** Before shared settings, one whole config per algorithm: read by `readTrainSettings`, dropped by `withSettings`. */
  configs?: unknown;
}

const sameValue = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** Copies one setting (a generic key keeps the assignment typed). */
function copy<K extends SharedKey>(to: Pick<TrainConfig, SharedKey>, from: TrainConfig, key: K): void {
  to[key] = from[key];
}

/**
 * Shared settings from the old form's two whole configs: for each, the value of the algorithm on screen when the user
 * edited it there, else the other algorithm's edit, else the default — so an edit made under either one survives.
 */
function migrateConfigs(configs: unknown, algo: TrainAlgo): TrainSettings {
  const stored = typeof configs === 'object' && configs !== null ? (configs as Partial<Record<TrainAlgo, unknown>>) : {};
  const sft = completeConfig(stored.sft, DEFAULT_SFT_CONFIG);
  const grpo = completeConfig(stored.grpo, DEFAULT_TRAIN_CONFIG);
  const [first, second] = algo === 'sft' ? [sft, grpo] : [grpo, sft];
  const shared = pick(first, SHARED_KEYS);
  for (const key of SHARED_KEYS) {
    const edited = (c: TrainConfig) => !sameValue(c[key], TRAIN_DEFAULTS[c.algo][key]);
    if (!edited(first) && edited(second)) copy(shared, second, key);
  }
  return { shared, own: { sft: pick(sft, OWN_KEYS.sft), grpo: pick(grpo, OWN_KEYS.grpo) } };
}

/** The settings of a stored form: the current shape (completed with defaults where it lacks fields), or the old one. */
export function readTrainSettings(form: StoredSettingsForm): TrainSettings {
  const algo: TrainAlgo = form.algo === 'sft' ? 'sft' : 'grpo';
  const settings: unknown = form.settings;
  if (typeof settings === 'object' && settings !== null) {
    const { shared, own } = settings as { shared?: unknown; own?: Partial<Record<TrainAlgo, unknown>> };
    return {
      shared: pick(completeConfig(shared, DEFAULT_TRAIN_CONFIG), SHARED_KEYS),
      own: { sft: pick(completeConfig(own?.sft, DEFAULT_SFT_CONFIG), OWN_KEYS.sft), grpo: pick(completeConfig(own?.grpo, DEFAULT_TRAIN_CONFIG), OWN_KEYS.grpo) },
    };
  }
  if (form.configs !== undefined) return migrateConfigs(form.configs, algo);
  return DEFAULT_TRAIN_SETTINGS;
}

/** `form` holding `settings` (and no longer the old shape). */
export function withSettings<F extends StoredSettingsForm>(form: F, settings: TrainSettings): F {
  const next = { ...form, settings };
  delete next.configs;
  return next;
}
