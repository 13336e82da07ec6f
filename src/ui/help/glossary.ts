/**
 * Every tooltip text of the app in one place: what a figure or a setting means, in a sentence a newcomer reads on
 * hover (rendered as `title` attributes). Numbers are never copied here: weights, budgets and operational amounts
 * come from the environment's single source (src/env/rewards.ts, src/env/types.ts), so a changed default changes
 * the text too. The "How it works" page (HelpView) says the same things at length.
 */
import { DEFAULT_ENV_CONFIG } from '../../env/types.ts';
import { OPERATIONAL, STEP_COST, type RewardWeights } from '../../env/rewards.ts';
import type { ChoiceKey, NumericKey, SwitchKey } from '../train/config-fields.ts';
import { CHOICE_SETTINGS, NUMBER_SETTINGS, REWARD_LABELS, SWITCH_SETTINGS } from '../train/config-fields.ts';
import { REWARD_DESCRIPTIONS } from '../../train/settings-table.ts';
import { numberText as num } from './help-figures.ts';

const W = DEFAULT_ENV_CONFIG.weights;
const BUDGET = DEFAULT_ENV_CONFIG.budget;

/** Figures and settings shared by several views, by topic. */
export const GLOSSARY = {
  correctness: `Correctness: 1 on the step that answers correctly, 0 otherwise. Weight ${num(W.correctness)}.`,
  progress: `Progress: how much closer this step's query or sample came to the gold result (best closeness so far, 0 to 1, minus the best before; closeness holds only as far as the result agrees with the gold on the database and on perturbed copies of it). Cleared on a correct answer. Weight ${num(W.progress)}.`,
  operational: `Operational: ${num(OPERATIONAL.step)} for every step, ${num(OPERATIONAL.repeat)} for a repeat, ${num(OPERATIONAL.error)} for an error; nothing is paid for activity. Refunded on a correct answer, less ${num(STEP_COST)} per extra step. Weight ${num(W.operational)}.`,
  reward: `Reward of this step: ${num(W.correctness)} × correctness + ${num(W.progress)} × progress + ${num(W.operational)} × operational.`,
  episodeReturn: `Return: the sum of the rewards of the episode so far. A correct episode of L steps returns exactly ${num(W.correctness)} − ${num(W.operational * STEP_COST)} × (L − 1) with the default weights.`,
  stepsLeft: `Steps left: each action costs one step; at 0 the episode ends without an answer (budget ${BUDGET}).`,
  difficulty: 'Difficulty: Spider’s hardness of the gold SQL (easy, medium, hard, extra), from its joins, clauses and nesting.',
  split: 'Split: train questions are for training, eval questions for measuring; heldout are databases never trained on.',
  seed: 'Seed: the same seed picks the same question and makes a policy play the same episode again.',
  questionId: 'The question’s id in its dataset; a link with it opens this exact question.',
  outcome: 'How the step went: ok (it ran), nothing-new (a query result already seen), repeat (the same action again), error (invalid action, unknown table, SQL error or time limit). Every step costs the same; a repeat and an error cost more.',
  successRate: 'Success rate: the share of episodes that ended with a correct ANSWER.',
  meanReturn: 'Mean return: the average over episodes of the summed rewards; the weighted sum of the three mean parts.',
  meanCorrectness: 'Mean correctness: the share of episodes answered correctly (each counts 1 or 0).',
  meanProgress: 'Mean progress per episode. Progress is cleared when an episode succeeds, so it is non-zero only for failures that got closer to the gold result.',
  meanOperational: 'Mean operational per episode: the step costs, repeats and errors; a correct episode keeps only its step cost.',
  meanSteps: 'Mean steps: how many actions an episode took on average, the ANSWER included.',
  episodes: 'Episodes: how many questions were played (one episode each).',
  policy: 'Policy: who plays. Random picks valid actions (the floor), Oracle knows the gold SQL (the ceiling), Qwen is the language model (with an adapter when trained).',
  evalSplit: 'Which questions to play: train, eval (for measuring), heldout (other databases) or all.',
  evalEpisodes: 'How many questions to play, drawn with the seed from the chosen split.',
  outcomeMatrix: 'Questions both runs played, counted by whether run A and run B solved each.',
  datasetDatabases: 'Databases: SQLite files in this dataset.',
  datasetQuestions: 'Questions: natural-language questions with a gold SQL and its result.',
  datasetStored: 'Imported datasets are kept in this browser (IndexedDB) until you remove them.',
  describe: 'DESCRIBE <table>: the table’s columns, types and keys. One step.',
  sample: `SAMPLE <table>: the first ${DEFAULT_ENV_CONFIG.sampleRows} rows of the table. One step.`,
  query: 'QUERY <sql>: run one read-only SELECT or WITH statement; the result is shown (truncation stated). One step.',
  answer: 'ANSWER <value>: submit the answer (a value, a list or rows) and end the episode.',
  thinking: 'Qwen3 thinking: let the model write its reasoning before acting (slower, more tokens).',
  shots: 'Few-shot examples: Oracle episodes on other questions shown to the model before its own.',
  temperature: 'Temperature: 0 always picks the likeliest token; higher samples more varied text.',
  topP: 'Top-p: sample only from the likeliest tokens whose probabilities add up to p (1 = off).',
  maxNewTokens: 'The most tokens the model may write in one turn; longer text is cut.',
  decodeWeights: 'How the weights are stored on the GPU for decoding: q4 is smallest and fastest, f16 most exact.',
  trainStep: 'Optimisation steps done of the run’s total.',
  trainLoss: 'Loss of the last update: the negative log-likelihood (SFT) or the clipped policy loss (GRPO).',
  tokensPerSecond: 'Tokens generated or trained on per second in the last step.',
  gpuMemory: 'GPU memory the run planned: weights, adapter, activations, gradients and optimiser state.',
  eta: 'Estimated time until the run ends, from the pace of the steps so far.',
} as const;

export type GlossaryKey = keyof typeof GLOSSARY;

/** The tooltip of a glossary entry. */
export function tip(key: GlossaryKey): string {
  return GLOSSARY[key];
}

const ALGO_PREFIX = { grpo: 'GRPO: ', sft: 'SFT: ' } as const;

/**
 * Train settings by config key (and `rewardWeights.<part>`), from the one table of settings the form and
 * `sqlenv train --help` also read (src/train/settings-table.ts); a setting used by one algorithm says which.
 */
export const TRAIN_SETTING_HELP = Object.fromEntries([
  ...[...NUMBER_SETTINGS, ...SWITCH_SETTINGS, ...CHOICE_SETTINGS].map((s) => [s.key, `${s.algo ? ALGO_PREFIX[s.algo] : ''}${s.description}`]),
  ...Object.entries(REWARD_DESCRIPTIONS).map(([part, text]) => [`rewardWeights.${part}`, text]),
]) as Record<NumericKey | SwitchKey | ChoiceKey | `rewardWeights.${keyof RewardWeights}`, string>;

/** The help of a Train setting named by its label (as SettingField receives it); undefined for an unknown label. */
export function trainSettingHelp(label: string): string | undefined {
  const setting = [...NUMBER_SETTINGS, ...SWITCH_SETTINGS, ...CHOICE_SETTINGS].find((s) => s.label === label);
  if (setting) return TRAIN_SETTING_HELP[setting.key];
  const part = (Object.keys(REWARD_LABELS) as Array<keyof RewardWeights>).find((p) => REWARD_LABELS[p] === label);
  return part === undefined ? undefined : TRAIN_SETTING_HELP[`rewardWeights.${part}`];
}
