/**
 * SQLEnv: answer a natural-language question about a SQLite database by exploring it.
 *
 * Task: a question from the dataset (Spider or the demo) about one database; the agent must submit the answer.
 * Action format: `DESCRIBE <table>` | `SAMPLE <table>` | `QUERY <one SELECT/WITH statement>` | `ANSWER <value>`
 *   as text (keywords case-insensitive) or as objects (see actions.ts). Anything else is an invalid action: it
 *   costs a step and an operational penalty, and the observation says what was wrong. `step` never throws for a
 *   bad action; it throws `EnvUsageError` only when called before `reset` or after the episode ended.
 * Observation: text (question, database, tables, steps left, and the last step's output as an aligned table with
 *   truncation stated) plus the same content as structured fields for rendering.
 * Start state: `reset` picks a question (by id, or seeded from a split/difficulty/database filter) and opens a
 *   fresh read-only copy of its database, so no episode sees another's changes.
 * Reward: correctness + progress + operational, each in `info.components`, weighted (rewards.ts has the formulas
 *   and properties, docs/rewards.md their arguments). Every step costs 0.01 (repeats and errors more); progress is
 *   the rise of the potential Φ = best closeness so far, where a result's closeness counts only as far as it agrees
 *   with the gold on the database and on perturbed copies of it (closeness.ts). A correct answer settles: a correct
 *   episode of L steps returns w_c − w_o·0.01·(L − 1) whatever it did before; a wrong one costs one step and keeps Φ.
 * Episode end: an ANSWER terminates; running out of the step budget (default 10; a free-play question, which has no
 *   gold and pays no correctness or progress, gets FREE_PLAY_BUDGET = 100, src/data/free-play.ts) truncates.
 * Bounds: every value is clipped by the SQL worker before it arrives (src/sql/limits.ts); the observation text, the
 *   result kept in `observation.result` and the echoed action are bounded there too, so no step can flood a caller.
 * Version history:
 *   v1 — first version.
 *   v2 — rewards that cannot be gamed: settlement on success (return depends only on length), progress and the
 *        information bonus only from queries that read rows (literals blanked), DESCRIBE/SAMPLE bonus only for the
 *        gold SQL's tables, repeats compared after normalising SQL and never raising the potential; every value
 *        bounded end to end.
 *   v3 — closeness measured on the database's content (Spider's test-suite idea): a QUERY or SAMPLE result earns
 *        closeness only as far as it agrees with the gold on the database and on four seeded perturbed copies
 *        (rows removed, values changed, both, columns shuffled; fresh connections; no trigger fired), because v2's
 *        empty twin and literal blanking were beaten by connection-state functions, dressed literals and gated
 *        guesses, and refused honest golds that answer 0 or NULL. Nothing is paid for activity (v2's +0.02 per
 *        new result paid spam): every step costs STEP_COST, and a wrong ANSWER costs one step and keeps Φ, so
 *        answering never loses to stalling. The weight check is exact. Observations list at most
 *        `maxObservationTables` tables.
 */
import { FREE_PLAY_BUDGET } from '../data/free-play.ts';
import type { Dataset, Question } from '../data/types.ts';
import { createRng, pick } from '../data/rng.ts';
import type { SqlExecutor } from '../sql/executor.ts';
import { quoteIdentifier } from '../sql/quote.ts';
import { nondeterminismIn } from '../sql/nondeterministic.ts';
import { SqlError, type QueryResult } from '../sql/types.ts';
import { actionKey, normalizeSqlForRepeat } from './action-key.ts';
import { formatAction, normalizeAction, type Action, type ActionInput, type ParsedAction } from './actions.ts';
import { answerMatches, describeVerdict } from './answer.ts';
import { formatDescribe, formatTable } from './format.ts';
import { boundedResultView, clipText } from './result-view.ts';
import { closenessOnCopies } from './closeness.ts';
import { OPERATIONAL, progressReward, settlementComponents, totalReward, validateRewardWeights, type OperationalOutcome, type RewardComponents } from './rewards.ts';
import { resultSimilarity } from './similarity.ts';
import { valueKey } from './verifier.ts';
import { DEFAULT_ENV_CONFIG, type EnvConfig, type EnvState, type Observation, type ResetOptions, type ResetResult, type ResultView, type StepOutcome, type StepResult } from './types.ts';

export const ENV_VERSION = 3;

export class EnvUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EnvUsageError';
  }
}

/** What a step produced before rewards: its observation body and how it went. */
interface StepEffect {
  body: string;
  outcome: StepOutcome;
  /** What the step earns operationally (before any settlement). */
  pay: OperationalOutcome;
  result?: ResultView;
  table?: Observation['table'];
  error?: string;
  similarity?: number;
  correct?: boolean;
}

interface Episode {
  question: Question;
  seed: number;
  dbKey: string;
  tables: string[];
  stepsUsed: number;
  /** Φ: best closeness so far of a QUERY or SAMPLE result to the gold (closeness.ts). */
  bestSimilarity: number;
  /** Σ operational reward paid so far, refunded by the settlement of a correct answer. */
  operationalSoFar: number;
  episodeReturn: number;
  terminated: boolean;
  truncated: boolean;
  actionsSeen: Set<string>;
  resultsSeen: Set<string>;
}

/**
 * A fingerprint of a result's values (column names aside), to tell whether a query showed anything new. Values are
 * already clipped by the SQL worker, so this stays within the result budget.
 */
function resultFingerprint(result: QueryResult): string {
  const rows = result.rows.map((r) => r.map(valueKey).join('\u0000'));
  return `${result.truncated ? 't' : 'c'}${rows.join('\u0001')}`;
}

/** How a SqlEnv is hosted. Every field is optional: `new SqlEnv(dataset, executor, config)` behaves as it always did. */
export interface SqlEnvOptions {
  /**
   * The executor key an episode opens its database copy under; default `${dataset.name}/${dbId}`. A server that hosts
   * many sessions over shared SQL workers gives each session its own key, so no two sessions share a copy.
   */
  dbKey?: (dbId: string) => string;
}

export class SqlEnv {
  readonly dataset: Dataset;
  readonly config: EnvConfig;
  private readonly executor: SqlExecutor;
  private readonly bytes = new Map<string, Uint8Array>();
  private readonly questionsById: Map<string, Question>;
  private readonly dbKeyFor: (dbId: string) => string;
  private episode: Episode | null = null;

  constructor(dataset: Dataset, executor: SqlExecutor, config: Partial<EnvConfig> = {}, options: SqlEnvOptions = {}) {
    this.dataset = dataset;
    this.executor = executor;
    this.dbKeyFor = options.dbKey ?? ((dbId) => `${dataset.name}/${dbId}`);
    this.config = { ...DEFAULT_ENV_CONFIG, ...config, weights: { ...DEFAULT_ENV_CONFIG.weights, ...config.weights } };
    validateRewardWeights(this.config.weights, this.config.budget);
    this.questionsById = new Map(dataset.questions.map((q) => [q.id, q]));
  }

  /** Questions a reset with these filters chooses from, in dataset order. */
  candidates(options: Omit<ResetOptions, 'seed' | 'questionId'> = {}): Question[] {
    const split = options.split ?? 'train';
    return this.dataset.questions.filter(
      (q) => (split === 'all' || q.split === split) && (!options.difficulty || q.difficulty === options.difficulty) && (!options.dbId || q.dbId === options.dbId),
    );
  }

  private chooseQuestion(options: ResetOptions, seed: number): Question {
    if (options.questionId !== undefined) {
      const question = this.questionsById.get(options.questionId);
      if (!question) throw new EnvUsageError(`No question '${options.questionId}' in dataset '${this.dataset.name}'.`);
      return question;
    }
    const candidates = this.candidates(options);
    if (candidates.length === 0) {
      throw new EnvUsageError(`No question in dataset '${this.dataset.name}' matches split=${options.split ?? 'train'}${options.difficulty ? `, difficulty=${options.difficulty}` : ''}${options.dbId ? `, db=${options.dbId}` : ''}.`);
    }
    return pick(createRng(seed), candidates);
  }

  async reset(options: ResetOptions = {}): Promise<ResetResult> {
    // The only place randomness enters unseeded: the drawn seed is reported, so the episode can be replayed.
    const seed = options.seed ?? Math.floor(Math.random() * 2 ** 31);
    const question = this.chooseQuestion(options, seed);
    const dbKey = this.dbKeyFor(question.dbId);
    let bytes = this.bytes.get(question.dbId);
    if (!bytes) {
      bytes = await this.dataset.loadDatabase(question.dbId);
      this.bytes.set(question.dbId, bytes);
    }
    await this.executor.load(dbKey, bytes);
    const tables = await this.executor.tables(dbKey);
    this.episode = {
      question,
      seed,
      dbKey,
      tables,
      stepsUsed: 0,
      bestSimilarity: 0,
      operationalSoFar: 0,
      episodeReturn: 0,
      terminated: false,
      truncated: false,
      actionsSeen: new Set(),
      resultsSeen: new Set(),
    };
    const shown = this.shownTables(tables);
    const text = [
      `Question: ${question.question}`,
      `Database: ${question.dbId}`,
      `Tables: ${this.tableList(tables)}`,
      'Actions: DESCRIBE <table> | SAMPLE <table> | QUERY <one SELECT statement> | ANSWER <value>',
      `Steps left: ${this.budgetOf(question)}`,
    ].join('\n');
    return {
      observation: { text, question: question.question, dbId: question.dbId, tables: shown, ...(shown.length < tables.length && { tablesNotShown: tables.length - shown.length }), stepsLeft: this.budgetOf(question) },
      info: { seed, questionId: question.id, difficulty: question.difficulty, split: question.split },
    };
  }

  async step(input: ActionInput): Promise<StepResult> {
    const episode = this.episode;
    if (!episode) throw new EnvUsageError('Call reset() before step().');
    if (episode.terminated || episode.truncated) throw new EnvUsageError('The episode is over; call reset() to start another.');
    const action = normalizeAction(input);
    const bestBefore = episode.bestSimilarity;
    const effect = await this.apply(episode, action);
    episode.stepsUsed++;
    if (action.type === 'ANSWER') episode.terminated = true;
    else if (episode.stepsUsed >= this.budgetOf(episode.question)) episode.truncated = true;

    const components: RewardComponents = effect.correct
      ? settlementComponents(episode.stepsUsed, bestBefore, episode.operationalSoFar)
      : { correctness: 0, progress: progressReward(bestBefore, episode.bestSimilarity), operational: OPERATIONAL[effect.pay] };
    episode.operationalSoFar += components.operational;
    const reward = totalReward(components, this.config.weights);
    episode.episodeReturn += reward;
    const stepsLeft = this.budgetOf(episode.question) - episode.stepsUsed;
    const done = episode.terminated || episode.truncated;
    const ending = episode.truncated ? '\nNo steps left: the episode ended without an answer.' : '';
    const observation: Observation = {
      text: `> ${clipText(formatAction(action), this.config.maxActionEchoChars)}\n${effect.body}\nSteps left: ${stepsLeft}${ending}`,
      question: episode.question.question,
      dbId: episode.question.dbId,
      tables: this.shownTables(episode.tables),
      ...(episode.tables.length > this.config.maxObservationTables && { tablesNotShown: episode.tables.length - this.config.maxObservationTables }),
      stepsLeft,
      ...(effect.result && { result: effect.result }),
      ...(effect.table && { table: effect.table }),
      ...(effect.error !== undefined && { error: effect.error }),
    };
    return {
      observation,
      reward,
      done,
      info: {
        action,
        outcome: effect.outcome,
        components,
        terminated: episode.terminated,
        truncated: episode.truncated,
        correct: action.type === 'ANSWER' ? effect.correct === true : null,
        similarity: effect.similarity ?? null,
        bestSimilarity: episode.bestSimilarity,
        stepIndex: episode.stepsUsed - 1,
        episodeReturn: episode.episodeReturn,
      },
    };
  }

  private async apply(episode: Episode, action: ParsedAction): Promise<StepEffect> {
    if (action.type === 'INVALID') {
      // A reason may quote the action back; the action may be a megabyte of model output.
      const reason = clipText(action.reason, this.config.maxActionEchoChars);
      return { body: `Error: ${reason}`, outcome: 'error', pay: 'error', error: reason };
    }
    const key = actionKey(action);
    const repeated = episode.actionsSeen.has(key);
    episode.actionsSeen.add(key);
    const effect = await this.run(episode, action, repeated);
    // A repeat that fails is still an error; one that succeeds shows nothing new and says so.
    if (repeated && effect.outcome !== 'error' && action.type !== 'ANSWER') {
      return { ...effect, outcome: 'repeat', pay: 'repeat', body: `${effect.body}\n(Note: this action was already taken in this episode.)` };
    }
    return effect;
  }

  /** The tables an observation lists: the first `maxObservationTables` (a database may have 20,000). */
  private shownTables(tables: string[]): string[] {
    return tables.length <= this.config.maxObservationTables ? tables : tables.slice(0, this.config.maxObservationTables);
  }

  /** The table list of an observation's text, saying how many more there are when it is cut. */
  private tableList(tables: string[]): string {
    const shown = this.shownTables(tables);
    const more = tables.length - shown.length;
    return more > 0 ? `${shown.join(', ')} … and ${more} more (DESCRIBE works on any of them)` : tables.join(', ');
  }

  private unknownTable(episode: Episode, table: string): StepEffect | null {
    if (episode.tables.some((t) => t.toLowerCase() === table.toLowerCase())) return null;
    const error = `Unknown table '${clipText(table, 100)}'. Tables: ${this.tableList(episode.tables)}.`;
    return { body: `Error: ${error}`, outcome: 'error', pay: 'error', error };
  }

  /**
   * The closeness of a result `sql` gave on the database (closeness.ts). The copies are consulted only when the
   * result could raise Φ: its similarity on the database is an upper bound of its closeness, so a result at or
   * below Φ (or a repeat, which never raises Φ) cannot pay and is reported with that upper bound.
   */
  private async closenessOf(episode: Episode, sql: string, result: QueryResult, repeated: boolean): Promise<number> {
    const { question } = episode;
    if (question.freePlay || result.truncated) return 0;
    const isGold = normalizeSqlForRepeat(sql) === normalizeSqlForRepeat(question.gold);
    // A result that can change between runs may meet the gold by chance alone (closeness.ts): never paid.
    if (!isGold && nondeterminismIn(sql) !== null) return 0;
    const real = resultSimilarity(result, question.goldResult, question.orderMatters);
    if (real === 0 || repeated || real <= episode.bestSimilarity) return real;
    try {
      const run = await this.executor.runOnCopies(episode.dbKey, sql, question.gold, { maxRows: this.config.verifyRows, timeoutMs: this.config.queryTimeoutMs });
      return closenessOnCopies(result, real, run, question.goldResult, question.orderMatters, isGold);
    } catch {
      // The copies could not judge (a time limit, a crash): nothing is verified, nothing is paid.
      return 0;
    }
  }

  private async run(episode: Episode, action: Action, repeated: boolean): Promise<StepEffect> {
    const limits = { maxRows: this.config.maxObservationRows, maxCellChars: this.config.maxCellChars, maxChars: this.config.maxObservationChars };
    const view = { maxRows: this.config.maxObservationRows, maxCellChars: this.config.maxViewCellChars, maxChars: this.config.maxViewChars };
    try {
      switch (action.type) {
        case 'DESCRIBE': {
          const unknown = this.unknownTable(episode, action.table);
          if (unknown) return unknown;
          const table = await this.executor.describe(episode.dbKey, action.table);
          return { body: formatDescribe(table), outcome: 'ok', pay: 'step', table };
        }
        case 'SAMPLE': {
          const unknown = this.unknownTable(episode, action.table);
          if (unknown) return unknown;
          const sample = await this.executor.sample(episode.dbKey, action.table, this.config.sampleRows);
          const result = boundedResultView(sample.columns, sample.rows, sample.rows.length, view);
          // A sample's rows are the database's content: they count toward closeness as the same SELECT would.
          const name = episode.tables.find((t) => t.toLowerCase() === action.table.toLowerCase()) ?? action.table;
          const similarity = await this.closenessOf(episode, `SELECT * FROM ${quoteIdentifier(name)} LIMIT ${this.config.sampleRows}`, sample, repeated);
          if (!repeated) episode.bestSimilarity = Math.max(episode.bestSimilarity, similarity);
          return { body: formatTable(sample.columns, sample.rows, sample.rows.length, limits, { clippedCells: sample.clippedCells, truncatedBy: sample.truncatedBy }), outcome: 'ok', pay: 'step', result, similarity };
        }
        case 'QUERY': {
          const full = await this.executor.query(episode.dbKey, action.sql, { maxRows: this.config.verifyRows, timeoutMs: this.config.queryTimeoutMs });
          const totalRows = full.truncated ? null : full.rows.length;
          const body = formatTable(full.columns, full.rows, totalRows, limits, { clippedCells: full.clippedCells, truncatedBy: full.truncatedBy });
          const result = boundedResultView(full.columns, full.rows, totalRows, view);
          const similarity = await this.closenessOf(episode, action.sql, full, repeated);
          // A repeat never raises the potential, even when its normalised key is shared with an earlier statement
          // that failed (see action-key.ts), so repeats earn exactly 0 progress.
          if (!repeated) episode.bestSimilarity = Math.max(episode.bestSimilarity, similarity);
          const fingerprint = resultFingerprint(full);
          const isNew = !episode.resultsSeen.has(fingerprint);
          episode.resultsSeen.add(fingerprint);
          return { body, outcome: isNew ? 'ok' : 'nothing-new', pay: 'step', result, similarity };
        }
        case 'ANSWER': {
          if (episode.question.freePlay) return { body: 'Answer noted. Free play has no gold answer, so there is no correctness reward.', outcome: 'ok', pay: 'step', correct: false };
          // The observation says how the text was read, right or wrong, so an agent or a person can see why.
          const verdict = answerMatches(action.value, episode.question.goldResult, episode.question.orderMatters, episode.question.goldTies);
          return { body: `Answer submitted: ${describeVerdict(verdict)}`, outcome: 'ok', pay: 'step', correct: verdict.match };
        }
        default:
          return action satisfies never;
      }
    } catch (e) {
      // No text may break a step: anything that is not a SQL failure is reported as an error observation too.
      const error =
        e instanceof SqlError
          ? e.kind === 'timeout'
            ? `${e.message} Simplify the query (add a LIMIT, avoid cross joins).`
            : clipText(e.message, this.config.maxActionEchoChars)
          : `The environment could not process this step (${e instanceof Error ? `${e.name}: ${clipText(e.message, 200)}` : 'unknown failure'}); the episode goes on.`;
      return { body: `Error: ${error}`, outcome: 'error', pay: 'error', error };
    }
  }

  /** The step budget of an episode on `question`: the configured one, or free play's own (see FREE_PLAY_BUDGET). */
  private budgetOf(question: Question): number {
    return question.freePlay === true ? FREE_PLAY_BUDGET : this.config.budget;
  }

  state(): EnvState {
    const e = this.episode;
    if (!e) throw new EnvUsageError('Call reset() before state().');
    return {
      seed: e.seed,
      questionId: e.question.id,
      dbId: e.question.dbId,
      stepsUsed: e.stepsUsed,
      stepsLeft: this.budgetOf(e.question) - e.stepsUsed,
      done: e.terminated || e.truncated,
      terminated: e.terminated,
      truncated: e.truncated,
      bestSimilarity: e.bestSimilarity,
      episodeReturn: e.episodeReturn,
    };
  }

  /** The question of the current episode (gold included): for Oracle policies and for showing the answer at the end. */
  currentQuestion(): Question {
    if (!this.episode) throw new EnvUsageError('Call reset() before currentQuestion().');
    return this.episode.question;
  }

  /** Ends the episode; calling it twice is harmless. The executor belongs to the caller and stays open. */
  close(): void {
    this.episode = null;
  }
}
