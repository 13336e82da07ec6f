/**
 * The Train view's settings as `sqlenv train` flags: one flag per `TrainConfig` field (src/train/types.ts), named in
 * kebab case (`--group-size` for groupSize). The flags, their descriptions and which algorithm uses each come from
 * the one settings table (src/train/settings-table.ts) the view renders; a config is refused by the one settings
 * check (src/train/settings-check.ts) the view, the trainer and the worker use, as a usage error (exit 2) naming the
 * flag, its value and the rule.
 *
 * Defaults are the view's: DEFAULT_TRAIN_CONFIG for GRPO, DEFAULT_SFT_CONFIG for SFT, except `checkpointEvery`,
 * which is min(its default, steps) so that a short run still leaves a checkpoint to resume from.
 */
import { LORA_TARGETS, type LoraTarget } from '../model/lora.ts';
import { firstSettingsProblem } from '../train/settings-check.ts';
import { CHOICE_SETTINGS, GROUP_TITLES, NUMBER_SETTINGS, OTHER_SETTINGS, SWITCH_SETTINGS, type ChoiceKey, type SettingGroup } from '../train/settings-table.ts';
import { DEFAULT_SFT_CONFIG, DEFAULT_TRAIN_CONFIG, type TrainAlgo, type TrainConfig } from '../train/types.ts';
import { choice, UsageError } from './args.ts';

type Field = Exclude<keyof TrainConfig, 'algo'>;
type Kind = 'int' | 'number' | 'bool' | 'targets' | 'weights' | 'choice';

interface Flag {
  field: Field;
  kind: Kind;
  group: SettingGroup;
  algo?: TrainAlgo;
  description: string;
  /** The values of a 'choice' flag (the settings table's). */
  choices?: readonly string[];
}

const OTHER_KINDS: Record<(typeof OTHER_SETTINGS)[number]['key'], Kind> = { rewardWeights: 'weights', loraTargets: 'targets' };

/** Every TrainConfig field but `algo` (its own flag), from the settings table, in the view's group order. */
const FLAGS: readonly Flag[] = (Object.keys(GROUP_TITLES) as SettingGroup[]).flatMap((group) =>
  [
    ...NUMBER_SETTINGS.map((s): Flag => ({ field: s.key, kind: s.whole ? 'int' : 'number', group: s.group, algo: s.algo, description: s.description })),
    ...SWITCH_SETTINGS.map((s): Flag => ({ field: s.key, kind: 'bool', group: s.group, algo: s.algo, description: s.description })),
    ...CHOICE_SETTINGS.map((s): Flag => ({ field: s.key, kind: 'choice', group: s.group, algo: s.algo, description: s.description, choices: s.choices })),
    ...OTHER_SETTINGS.map((s): Flag => ({ field: s.key, kind: OTHER_KINDS[s.key], group: s.group, algo: s.algo, description: s.description })),
  ].filter((f) => f.group === group),
);

/** What a flag's value looks like, in its help line. */
const PLACEHOLDER: Record<Exclude<Kind, 'choice'>, string> = { int: 'N', number: 'X', bool: 'true|false', targets: 'LIST', weights: 'C,P,O' };
const placeholder = (f: Flag): string => (f.kind === 'choice' ? (f.choices ?? []).join('|') : PLACEHOLDER[f.kind]);

/** `maxNewTokensPerTurn` → `max-new-tokens-per-turn`. */
export function flagName(field: string): string {
  return field.replace(/[A-Z]/g, (m) => `-${m.toLowerCase()}`);
}

/** The flags, as `parseArgs` options (every one a string: booleans are `true|false`). */
export const TRAIN_CONFIG_OPTIONS: Record<string, { type: 'string' }> = Object.fromEntries(FLAGS.map(({ field }) => [flagName(field), { type: 'string' as const }]));

function valueText(v: TrainConfig[Field]): string {
  return Array.isArray(v) ? v.join(',') : typeof v === 'object' ? Object.values(v).join(',') : String(v);
}

/** Which runs use a flag and its default(s): one algorithm's, or both's (one value when they agree). */
function defaultsText(f: Flag): string {
  const sft = valueText(DEFAULT_SFT_CONFIG[f.field]);
  const grpo = valueText(DEFAULT_TRAIN_CONFIG[f.field]);
  const cap = f.field === 'checkpointEvery' ? ', at most --steps' : '';
  if (f.algo === 'grpo') return `GRPO only; default ${grpo}${cap}`;
  if (f.algo === 'sft') return `SFT only; default ${sft}${cap}`;
  return sft === grpo ? `default ${sft}${cap}` : `default sft ${sft}, grpo ${grpo}${cap}`;
}

/** `sqlenv train --help`'s settings: by the view's groups, one line per flag with what it does and its defaults. */
export function trainFlagsHelp(): string {
  const heads = FLAGS.map((f) => `--${flagName(f.field)} ${placeholder(f)}`);
  const width = Math.max(...heads.map((h) => h.length)) + 2;
  const lines: string[] = [];
  FLAGS.forEach((f, i) => {
    if (i === 0 || FLAGS[i - 1].group !== f.group) lines.push(`${GROUP_TITLES[f.group]}:`);
    lines.push(`  ${heads[i].padEnd(width)}${f.description} (${defaultsText(f)})`);
  });
  lines.push(`LIST: comma-separated of ${LORA_TARGETS.join(',')}. C,P,O: the correctness, progress and operational weights.`);
  return lines.join('\n');
}

function parseValue(flag: string, { kind, choices = [] }: Flag, text: string): TrainConfig[keyof TrainConfig] {
  const bad = (what: string): never => {
    throw new UsageError(`--${flag} must be ${what}, got '${text}'.`);
  };
  switch (kind) {
    case 'int': // whole numbers are the settings check's rule (so the CLI words it as the view does)
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
    case 'choice':
      // The value is one of the table's, which are the field's type (settings-table.ts's ChoiceSetting).
      return choices.includes(text) ? (text as TrainConfig[ChoiceKey]) : bad(choices.join(' or '));
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
  for (const flag of FLAGS) {
    const text = values[flagName(flag.field)];
    if (typeof text === 'string') out[flag.field] = parseValue(flagName(flag.field), flag, text);
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
  // The view's check, to the letter; a usage error names the flag and the value given.
  const problem = firstSettingsProblem(config);
  if (problem) {
    const field = problem.field.startsWith('rewardWeights.') ? 'rewardWeights' : (problem.field as Field);
    throw new UsageError(`--${flagName(field)} ${valueText(config[field])}: ${problem.message}`);
  }
  return config;
}
