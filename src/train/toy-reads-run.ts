/**
 * The "reads" learning run (task: toy-reads-task.ts), shared by the GPU checks (src/gpu-tests/checks/train-reads.ts,
 * Node on Dawn and Chromium) and `npm run train:toy -- --task reads` (CPU reference):
 *
 *   1. a run seed draws three disjoint sets of content seeds: SFT databases, GRPO databases and fresh databases;
 *   2. warm-up: SFT on the Oracle's transcripts of the SFT databases;
 *   3. GRPO on the GRPO databases under the environment's DEFAULT reward weights (src/env/rewards.ts);
 *   4. the measure, before and after GRPO: success of one sampled episode (temperature 1) per question of every fresh
 *      database — databases no update ever saw — and how often an ANSWER copies a value an observation showed.
 * The control is the same run at lr 0 (it must not move the measure); the bar is the best fixed-answer policy's exact
 * success rate (`fixedAnswerCeiling`). The model is the toy's tiny random Qwen3 (2 layers, C = 32, rank-4 LoRA) with
 * the reads tokenizer's vocabulary.
 *
 * STATUS — SFT teaches reading; GRPO does not yet add to it. CPU reference, run seed 1, 40 fresh databases (200 episodes),
 * ceiling 0.2067, after trainfix's SFT-mask change (fresh success after the SFT warm-up → after GRPO):
 *   SFT 300 steps lr 0.02, T = 1,   GRPO 30 steps lr 0.002, default weights:   0.600 → 0.615 (these settings)
 *   the same, GRPO lr 0.005:                                                 0.600 → 0.565
 *   SFT 100 steps lr 0.02, T = 1,   GRPO 60 steps lr 0.005, default weights:   0.195 → 0.140
 *   the same with correctness-only weights:                                  0.195 → 0.220
 *   SFT 100 steps lr 0.02, T = 0.5, GRPO 30 steps lr 0.01, default weights:    0.445 → 0.255 (counts 0.95 → 0.25/0.65)
 *   SFT 60 steps lr 0.02,  T = 0.5, GRPO 30 steps lr 0.01, default weights:    0.200 → 0.220 (turns 3.00 → 2.40)
 * So the model can read (300 SFT steps: names 0.50–0.63, 61 % of ANSWERs copy an observed value, ceiling 0.21), but
 * GRPO has not raised fresh success above the warm-up in any setting tried: after 100 SFT steps (names ≈ one fixed
 * name) it never taught the names, and at lr ≥ 0.01 it undid the counts. The train-learning-grpo-reads check holds
 * the brief's bar and fails today; the settings below are the best measured, not tuned (/tmp/notes/reads.md).
 */
import type { SqlJsStatic } from 'sql.js';
import { createRng, randomInt } from '../data/rng.ts';
import type { Dataset } from '../data/types.ts';
import type { ModelConfig } from '../model/config.ts';
import { randomModelWeights } from '../model/tiny-model.ts';
import type { Tokenizer } from '../model/tokenizer.ts';
import type { Tensor } from '../model/weights.ts';
import { LocalSqlExecutor } from '../sql/executor.ts';
import type { TrainableModel } from './policy-model.ts';
import { deriveSeed, rollout, type RolledEpisode } from './rollout.ts';
import { buildReadsDataset, createReadsTokenizer, fixedAnswerCeiling, READS_TEMPLATES } from './toy-reads-task.ts';
import { TOY_MODEL_SEED, toyModelConfig } from './toy-run.ts';
import { Trainer, type TrainerCallbacks, type TrainResult } from './trainer.ts';
import type { TrainConfig } from './types.ts';

/** Databases per role (each asks every template once: × 5 questions). */
export const READS_DATABASES = { sft: 48, grpo: 48, fresh: 40 } as const;

/** Episode shape of every phase: DESCRIBE, QUERY, ANSWER fit in 3 turns; an ANSWER is 3 tokens + the end token. */
const EPISODE: Partial<TrainConfig> = { maxTurns: 3, maxNewTokensPerTurn: 4, maxEpisodeTokens: 128 };
const QUIET: Partial<TrainConfig> = { evalEvery: 0, traceEvery: 0, checkpointEvery: 0 };

export const READS_SFT: Partial<TrainConfig> = { ...EPISODE, ...QUIET, algo: 'sft', steps: 300, lr: 0.02, warmupSteps: 0, sftExamplesPerStep: 8 };
/** GRPO under the environment's default reward weights: no `rewardWeights` here on purpose. */
export const READS_GRPO: Partial<TrainConfig> = { ...EPISODE, ...QUIET, algo: 'grpo', steps: 30, lr: 0.002, warmupSteps: 0, groupSize: 8, promptsPerStep: 4, stdScaling: true };

export interface ReadsSeeds {
  sft: number[];
  grpo: number[];
  fresh: number[];
}

/** Three disjoint sets of content seeds drawn from `runSeed`. */
export function drawReadsSeeds(runSeed: number, sizes: { sft: number; grpo: number; fresh: number } = READS_DATABASES): ReadsSeeds {
  const rng = createRng(deriveSeed(runSeed, 'reads-content'));
  const used = new Set<number>();
  const draw = (n: number): number[] =>
    Array.from({ length: n }, () => {
      let s: number;
      do s = randomInt(rng, 1_000_000_000);
      while (used.has(s));
      used.add(s);
      return s;
    });
  return { sft: draw(sizes.sft), grpo: draw(sizes.grpo), fresh: draw(sizes.fresh) };
}

export interface ReadsSetup {
  runSeed: number;
  seeds: ReadsSeeds;
  /** Train split = the SFT databases. */
  sftDataset: Dataset;
  /** Train split = the GRPO databases; eval split = the fresh databases. */
  grpoDataset: Dataset;
  executor: LocalSqlExecutor;
  tokenizer: Tokenizer;
  config: ModelConfig;
  weights: Map<string, Tensor>;
}

export async function setupReadsTask(sql: SqlJsStatic, runSeed: number, sizes: { sft: number; grpo: number; fresh: number } = READS_DATABASES): Promise<ReadsSetup> {
  const seeds = drawReadsSeeds(runSeed, sizes);
  const tokenizer = createReadsTokenizer();
  const config = toyModelConfig(tokenizer.size);
  return {
    runSeed,
    seeds,
    sftDataset: await buildReadsDataset(sql, seeds.sft.map((seed) => ({ seed, split: 'train' as const })), 'toy-reads-sft'),
    grpoDataset: await buildReadsDataset(sql, [...seeds.grpo.map((seed) => ({ seed, split: 'train' as const })), ...seeds.fresh.map((seed) => ({ seed, split: 'eval' as const }))]),
    executor: new LocalSqlExecutor(sql),
    tokenizer,
    config,
    weights: randomModelWeights(config, createRng(TOY_MODEL_SEED)),
  };
}

export interface ReadsMeasure {
  /** Share of fresh episodes answered correctly. */
  success: number;
  /** Per template id. */
  byTemplate: Record<string, number>;
  /** Share of episodes that ANSWERed with a value an earlier observation of the episode showed. */
  copied: number;
  /** Share of episodes that ended with an ANSWER. */
  answered: number;
  /** Mean turns per episode. */
  turns: number;
  episodes: number;
}

/** The answered value, if the episode ended with a valid ANSWER. */
function answerOf(e: RolledEpisode): string | null {
  const last = e.turns.at(-1);
  return last?.action.type === 'ANSWER' ? last.action.value : null;
}

/** Whether an answer value shows as a whole token-bounded word in one of the episode's observations before it. */
export function copiesObservation(e: RolledEpisode): boolean {
  const value = answerOf(e);
  if (value === null || value.trim() === '') return false;
  const word = new RegExp(`(^|[^A-Za-z0-9])${value.trim().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^A-Za-z0-9])`);
  return e.turns.slice(0, -1).some((t) => word.test(t.observation));
}

/** One sampled episode per fresh question (seeds fixed by the run seed), measured. */
export async function measureFresh(trainer: Trainer, model: TrainableModel, dataset: Dataset, runSeed: number): Promise<ReadsMeasure> {
  const fresh = dataset.questions.filter((q) => q.split === 'eval');
  const tasks = fresh.map((question, i) => ({ question, seed: deriveSeed(runSeed, 'reads-fresh', i) }));
  const episodes = await rollout(model, trainer.createEnv, tasks, trainer.rolloutSettings());
  return summarise(episodes);
}

export function summarise(episodes: readonly RolledEpisode[]): ReadsMeasure {
  const n = episodes.length;
  const share = (f: (e: RolledEpisode) => boolean) => episodes.filter(f).length / n;
  const byTemplate: Record<string, number> = {};
  for (const t of READS_TEMPLATES) {
    const mine = episodes.filter((e) => e.questionId.endsWith(`-${t.id}`));
    byTemplate[t.id] = mine.filter((e) => e.correct).length / Math.max(1, mine.length);
  }
  return {
    success: share((e) => e.correct),
    byTemplate,
    copied: share(copiesObservation),
    answered: share((e) => answerOf(e) !== null),
    turns: episodes.reduce((s, e) => s + e.turns.length, 0) / n,
    episodes: n,
  };
}

export interface ReadsRun {
  ceiling: number;
  /** After the SFT warm-up, before GRPO. */
  before: ReadsMeasure;
  after: ReadsMeasure;
  sft: TrainResult;
  grpo: TrainResult;
}

export interface ReadsRunOptions {
  sft?: Partial<TrainConfig>;
  grpo?: Partial<TrainConfig>;
  callbacks?: { sft?: TrainerCallbacks; grpo?: TrainerCallbacks };
}

/** SFT warm-up, fresh measure, GRPO, fresh measure (see the header). */
export async function runReads(model: TrainableModel, setup: ReadsSetup, options: ReadsRunOptions = {}): Promise<ReadsRun> {
  const seed = { seed: setup.runSeed };
  const sftTrainer = new Trainer({ model, dataset: setup.sftDataset, executor: setup.executor }, { ...READS_SFT, ...seed, ...options.sft }, options.callbacks?.sft);
  const sft = await sftTrainer.run();
  const grpoTrainer = new Trainer({ model, dataset: setup.grpoDataset, executor: setup.executor }, { ...READS_GRPO, ...seed, ...options.grpo }, options.callbacks?.grpo);
  const before = await measureFresh(grpoTrainer, model, setup.grpoDataset, setup.runSeed);
  const grpo = await grpoTrainer.run();
  const after = await measureFresh(grpoTrainer, model, setup.grpoDataset, setup.runSeed);
  return { ceiling: fixedAnswerCeiling().rate, before, after, sft, grpo };
}

/** One line for logs. */
export function describeReadsRun(run: ReadsRun): string {
  const show = (m: ReadsMeasure) =>
    `success ${m.success.toFixed(3)} (${Object.entries(m.byTemplate).map(([k, v]) => `${k} ${v.toFixed(2)}`).join(', ')}), copied ${m.copied.toFixed(2)}, answered ${m.answered.toFixed(2)}, ${m.turns.toFixed(2)} turns`;
  const curve = run.grpo.metrics.map((m) => m.successRate.toFixed(2)).join(' ');
  return `fixed-answer ceiling ${run.ceiling.toFixed(4)}; fresh before GRPO: ${show(run.before)}; after: ${show(run.after)}; GRPO train success per step ${curve}; SFT loss ${run.sft.metrics[0]?.loss.toFixed(3)} → ${run.sft.metrics.at(-1)?.loss.toFixed(3)}`;
}
