/**
 * The Train view's settings as `sqlenv train` flags: one flag per `TrainConfig` field (src/train/types.ts), named in
 * kebab case (`--group-size` for groupSize), parsed from the table below and checked by the trainer's own
 * `validateTrainConfig` and the environment's reward rule, whose errors become usage errors (exit 2).
 *
 * Defaults are the view's: DEFAULT_TRAIN_CONFIG for GRPO, DEFAULT_SFT_CONFIG for SFT, except `checkpointEvery`,
 * which is min(its default, steps) so that a short run still leaves a checkpoint to resume from.
 */
import { RewardConfigError, validateRewardWeights } from '../env/rewards.ts';
import { LORA_TARGETS, type LoraTarget } from '../model/lora.ts';
import { TrainConfigError, validateTrainConfig } from '../train/trainer.ts';
import { DEFAULT_SFT_CONFIG, DEFAULT_TRAIN_CONFIG, type TrainAlgo, type TrainConfig } from '../train/types.ts';
import { choice, UsageError } from './args.ts';

type Kind = 'int' | 'number' | 'bool' | 'targets' | 'weights' | 'lossType';

/** Every TrainConfig field but `algo` (its own flag), with how its flag is read. */
const FIELDS: ReadonlyArray<readonly [Exclude<keyof TrainConfig, 'algo'>, Kind]> = [
  ['steps', 'int'],
  ['lr', 'number'],
  ['warmupSteps', 'int'],
  ['weightDecay', 'number'],
  ['adamBeta1', 'number'],
  ['adamBeta2', 'number'],
  ['adamEps', 'number'],
  ['maxGradNorm', 'number'],
  ['seed', 'int'],
  ['groupSize', 'int'],
  ['promptsPerStep', 'int'],
  ['updatesPerRollout', 'int'],
  ['maxTurns', 'int'],
  ['maxNewTokensPerTurn', 'int'],
  ['maxEpisodeTokens', 'int'],
  ['temperature', 'number'],
  ['topP', 'number'],
  ['clipEpsLow', 'number'],
  ['clipEpsHigh', 'number'],
  ['klBeta', 'number'],
  ['stdScaling', 'bool'],
  ['lossType', 'lossType'],
  ['rewardWeights', 'weights'],
  ['thinking', 'bool'],
  ['sftExamplesPerStep', 'int'],
  ['microBatchTokens', 'int'],
  ['evalEvery', 'int'],
  ['evalTrainSamples', 'int'],
  ['evalEvalSamples', 'int'],
  ['traceEvery', 'int'],
  ['checkpointEvery', 'int'],
  ['loraRank', 'int'],
  ['loraAlpha', 'number'],
  ['loraTargets', 'targets'],
];

/** `maxNewTokensPerTurn` → `max-new-tokens-per-turn`. */
export function flagName(field: string): string {
  return field.replace(/[A-Z]/g, (m) => `-${m.toLowerCase()}`);
}

/** The flags, as `parseArgs` options (every one a string: booleans are `true|false`). */
export const TRAIN_CONFIG_OPTIONS: Record<string, { type: 'string' }> = Object.fromEntries(FIELDS.map(([field]) => [flagName(field), { type: 'string' as const }]));

/** One line per flag with its default, for `sqlenv train --help`. */
export function trainFlagsHelp(): string {
  const fmt = (v: unknown): string => (Array.isArray(v) ? v.join(',') : typeof v === 'object' && v !== null ? Object.values(v).join(',') : String(v));
  return FIELDS.map(([field]) => `  --${flagName(field)} (grpo ${fmt(DEFAULT_TRAIN_CONFIG[field])}, sft ${fmt(DEFAULT_SFT_CONFIG[field])})`).join('\n');
}

function parseValue(flag: string, kind: Kind, text: string): TrainConfig[keyof TrainConfig] {
  const bad = (what: string): never => {
    throw new UsageError(`--${flag} must be ${what}, got '${text}'.`);
  };
  switch (kind) {
    case 'int': {
      const n = Number(text);
      return text.trim() !== '' && Number.isInteger(n) ? n : bad('an integer');
    }
    case 'number': {
      const n = Number(text);
      return text.trim() !== '' && Number.isFinite(n) ? n : bad('a number');
    }
    case 'bool':
      return text === 'true' ? true : text === 'false' ? false : bad('true or false');
    case 'targets': {
      const targets = text.split(',').map((t) => t.trim());
      const unknown = targets.find((t) => !(LORA_TARGETS as readonly string[]).includes(t));
      if (unknown !== undefined || targets.length === 0) bad(`a comma-separated list of ${LORA_TARGETS.join(',')}`);
      return [...new Set(targets)] as LoraTarget[];
    }
    case 'lossType':
      return text === 'dapo' || text === 'dr_grpo' ? text : bad('dapo or dr_grpo');
    case 'weights': {
      const parts = text.split(',').map(Number);
      if (parts.length !== 3 || parts.some((x) => !Number.isFinite(x))) bad('three numbers correctness,progress,operational');
      return { correctness: parts[0], progress: parts[1], operational: parts[2] };
    }
    default:
      return kind satisfies never;
  }
}

/** The flags given, as TrainConfig fields (nothing filled in). */
export function trainConfigOverrides(values: Record<string, string | boolean | undefined>): Partial<TrainConfig> {
  const out: Record<string, unknown> = {};
  for (const [field, kind] of FIELDS) {
    const text = values[flagName(field)];
    if (typeof text === 'string') out[field] = parseValue(flagName(field), kind, text);
  }
  return out;
}

/** The run's config: the algorithm's defaults, then the flags; checked as the trainer checks it. */
export function buildTrainConfig(algoText: string | undefined, overrides: Partial<TrainConfig>): TrainConfig {
  const algo = choice<TrainAlgo>('algo', algoText, ['sft', 'grpo']);
  const defaults = algo === 'sft' ? DEFAULT_SFT_CONFIG : DEFAULT_TRAIN_CONFIG;
  const steps = overrides.steps ?? defaults.steps;
  const config: TrainConfig = {
    ...defaults,
    checkpointEvery: Number.isInteger(steps) && steps > 0 ? Math.min(defaults.checkpointEvery, steps) : defaults.checkpointEvery,
    ...overrides,
    algo,
    rewardWeights: { ...defaults.rewardWeights, ...overrides.rewardWeights },
  };
  try {
    validateTrainConfig(config);
    validateRewardWeights(config.rewardWeights, config.maxTurns);
  } catch (e) {
    if (e instanceof TrainConfigError || e instanceof RewardConfigError) throw new UsageError(`${e.message} (settings are named as TrainConfig fields; flags are their kebab-case names).`);
    throw e;
  }
  return config;
}
