/**
 * Every tooltip text of the app in one place: what a figure or a setting means, in a sentence a newcomer reads on
 * hover (rendered as `title` attributes). Numbers are never copied here: weights, budgets and operational amounts
 * come from the environment's single source (src/env/rewards.ts, src/env/types.ts), so a changed default changes
 * the text too. The "How it works" page (HelpView) says the same things at length.
 */
import { DEFAULT_ENV_CONFIG } from '../../env/types.ts';
import { OPERATIONAL, STEP_COST, type RewardWeights } from '../../env/rewards.ts';
import type { NumericKey, SwitchKey } from '../train/config-fields.ts';
import { NUMBER_SETTINGS, REWARD_LABELS, SWITCH_SETTINGS } from '../train/config-fields.ts';
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

/** Train settings by config key (and `rewardWeights.<part>`). Typed complete: a new setting needs a text here. */
export const TRAIN_SETTING_HELP: Record<NumericKey | SwitchKey | `rewardWeights.${keyof RewardWeights}`, string> = {
  steps: 'Optimisation steps of the run.',
  lr: 'Learning rate of AdamW for the LoRA adapter.',
  groupSize: 'GRPO: episodes sampled per question; advantages compare the episodes of a group.',
  promptsPerStep: 'GRPO: questions per step, each played by a group of episodes.',
  sftExamplesPerStep: 'SFT: Oracle transcripts the model learns from per step.',
  maxTurns: 'The most actions per episode (the environment’s step budget during training).',
  maxNewTokensPerTurn: 'The most tokens the model may write in one turn.',
  maxEpisodeTokens: 'The most tokens of one episode (prompt, actions and observations).',
  clipEpsLow: 'GRPO: the probability ratio is clipped below at 1 − ε low.',
  clipEpsHigh: 'GRPO: the probability ratio is clipped above at 1 + ε high.',
  klBeta: 'GRPO: weight of the KL penalty that keeps the model near the policy the run started from — the base model for a fresh adapter, the warmed-up or loaded adapter otherwise (0 = none).',
  updatesPerRollout: 'GRPO: gradient updates on each batch of rollouts (μ).',
  temperature: 'Sampling temperature of the rollouts: higher gives more varied episodes.',
  topP: 'Nucleus sampling of the rollouts: only the likeliest tokens adding up to p (1 = off).',
  warmupSteps: 'Steps over which the learning rate rises from 0 to its value.',
  weightDecay: 'AdamW’s decoupled weight decay on the adapter.',
  adamBeta1: 'AdamW’s decay rate of the gradient’s running mean.',
  adamBeta2: 'AdamW’s decay rate of the squared gradient’s running mean.',
  adamEps: 'AdamW’s small constant that keeps the division stable.',
  maxGradNorm: 'Gradients are scaled down when their global norm exceeds this (0 = no clipping).',
  microBatchTokens: 'Tokens per forward/backward pass; gradients accumulate over micro-batches (0 = sized from GPU memory).',
  loraRank: 'Rank r of the LoRA adapter: larger learns more and uses more memory.',
  loraAlpha: 'LoRA scaling: the adapter’s update is multiplied by alpha / rank.',
  evalEvery: 'Run greedy evaluation episodes every this many steps (0 = never).',
  evalTrainSamples: 'Train questions played at each evaluation.',
  evalEvalSamples: 'Eval questions played at each evaluation.',
  traceEvery: 'Keep one execution trace every this many steps (0 = never).',
  checkpointEvery: 'Save the adapter and optimiser state every this many steps, to resume later (0 = never).',
  seed: 'Seed of the run: the same seed and settings give the same run.',
  stdScaling: 'GRPO: divide each advantage by the standard deviation of its group’s rewards.',
  thinking: 'Let Qwen3 write its reasoning before each action: in rollouts, in evaluations and in the SFT demonstration prompts (more tokens).',
  'rewardWeights.correctness': 'Weight of correctness (1 for a correct answer) in the training reward.',
  'rewardWeights.progress': 'Weight of progress (getting closer to the gold result) in the training reward.',
  'rewardWeights.operational': 'Weight of operational (information, repeats, errors, step cost) in the training reward.',
};

/** The help of a Train setting named by its label (as SettingField receives it); undefined for an unknown label. */
export function trainSettingHelp(label: string): string | undefined {
  const setting = NUMBER_SETTINGS.find((s) => s.label === label) ?? SWITCH_SETTINGS.find((s) => s.label === label);
  if (setting) return TRAIN_SETTING_HELP[setting.key];
  const part = (Object.keys(REWARD_LABELS) as Array<keyof RewardWeights>).find((p) => REWARD_LABELS[p] === label);
  return part === undefined ? undefined : TRAIN_SETTING_HELP[`rewardWeights.${part}`];
}
