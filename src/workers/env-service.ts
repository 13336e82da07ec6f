/**
 * The environment service: everything the page asks of datasets, episodes and evaluation, behind one async object.
 * It runs inside `env.worker.ts` (exposed with Comlink), so the UI thread only renders; tests call it directly.
 *
 * Sessions: Play and Watch each hold a session id with its own `SqlEnv`. Interactive sessions and evaluation runs
 * use separate SQL executors, so a runaway query in Play, which restarts its SQL worker, never fails an evaluation
 * that is running at the same time.
 */
import type { BundleReader } from '../data/bundle.ts';
import { readBundle } from '../data/bundle.ts';
import type { Dataset, Question, SplitSelector } from '../data/types.ts';
import type { Rng } from '../data/rng.ts';
import type { ActionInput } from '../env/actions.ts';
import { SqlEnv } from '../env/env.ts';
import type { EnvConfig, Observation, ResetOptions, ResetResult, StepResult } from '../env/types.ts';
import { policyRng } from '../eval/episode.ts';
import { evaluate, type EvalReport } from '../eval/evaluate.ts';
import { transcriptStep, type TranscriptStep } from '../eval/transcript.ts';
import type { HistoryEntry, Policy, PolicyDecision } from '../policies/policy.ts';
import { createPolicy, listPolicies, type PolicyInfo } from '../policies/registry.ts';
import type { SqlExecutor } from '../sql/executor.ts';
import type { TableInfo } from '../sql/types.ts';

/** A question as lists show it: everything but the gold result rows. */
export type QuestionSummary = Omit<Question, 'goldResult'>;

export interface DatasetSummary {
  name: string;
  description: string;
  license: string;
  databases: Array<{ id: string; tables: string[] }>;
  questions: QuestionSummary[];
}

export interface EvaluationRequest {
  runId: string;
  dataset: string;
  policy: string;
  split: SplitSelector;
  episodes: number | 'all';
  seed: number;
}

export interface PolicyStep {
  decision: PolicyDecision;
  result: StepResult;
  step: TranscriptStep;
}

interface Session {
  dataset: string;
  env: SqlEnv;
  first: Observation | null;
  history: HistoryEntry[];
  policy: Policy | null;
  /** The policy's generator, seeded as `runEpisode` seeds it, so Watch replays what Evaluate records. */
  rng: Rng;
}

export interface EnvServiceOptions {
  /** Makes a SQL executor; called once for interactive sessions and once per evaluation run. */
  createExecutor: () => SqlExecutor;
  /** Where a named bundle is read from (`demo`, `spider`). */
  bundleReader: (name: string) => BundleReader;
  /** Names of the bundles that were built (`bundles/index.json`). */
  bundleNames: () => Promise<string[]>;
  envConfig?: Partial<EnvConfig>;
}

export function summarizeDataset(dataset: Dataset): DatasetSummary {
  return {
    name: dataset.name,
    description: dataset.description,
    license: dataset.license,
    databases: dataset.databases.map((d) => ({ id: d.id, tables: d.tables })),
    questions: dataset.questions.map(({ goldResult: _gold, ...rest }) => rest),
  };
}

export class EnvService {
  private readonly options: EnvServiceOptions;
  private readonly datasets = new Map<string, Dataset>();
  private readonly loading = new Map<string, Promise<Dataset>>();
  private readonly sessions = new Map<string, Session>();
  private readonly runs = new Map<string, AbortController>();
  private interactive: SqlExecutor | null = null;

  constructor(options: EnvServiceOptions) {
    this.options = options;
  }

  private executor(): SqlExecutor {
    this.interactive ??= this.options.createExecutor();
    return this.interactive;
  }

  /** Loads a named bundle once (later calls share the first load). */
  private dataset(name: string): Promise<Dataset> {
    const ready = this.datasets.get(name);
    if (ready) return Promise.resolve(ready);
    let pending = this.loading.get(name);
    if (!pending) {
      pending = readBundle(this.options.bundleReader(name)).then((d) => {
        this.datasets.set(name, d);
        return d;
      });
      pending.catch(() => this.loading.delete(name));
      this.loading.set(name, pending);
    }
    return pending;
  }

  /** Bundles built with the app, e.g. ['demo', 'spider']. */
  bundles(): Promise<string[]> {
    return this.options.bundleNames();
  }

  async loadDataset(name: string): Promise<DatasetSummary> {
    return summarizeDataset(await this.dataset(name));
  }

  /** Registers a dataset made in the page (an imported Spider folder, a dropped SQLite file) under its name. */
  addDataset(dataset: Dataset): DatasetSummary {
    this.datasets.set(dataset.name, dataset);
    for (const [id, s] of this.sessions) if (s.dataset === dataset.name) this.sessions.delete(id);
    return summarizeDataset(dataset);
  }

  removeDataset(name: string): void {
    this.datasets.delete(name);
    this.loading.delete(name);
  }

  async question(dataset: string, questionId: string): Promise<Question> {
    const question = (await this.dataset(dataset)).questions.find((q) => q.id === questionId);
    if (!question) throw new RangeError(`No question '${questionId}' in dataset '${dataset}'.`);
    return question;
  }

  /**
   * Tables and their columns of a database, for the editor's completion and the schema panel. Reading the schema
   * this way is not an environment step: it costs nothing and is not recorded.
   */
  async schema(dataset: string, dbId: string): Promise<TableInfo[]> {
    const key = `schema:${dataset}/${dbId}`;
    const executor = this.executor();
    await executor.load(key, await (await this.dataset(dataset)).loadDatabase(dbId));
    const tables = await executor.tables(key);
    return Promise.all(tables.map((t) => executor.describe(key, t)));
  }

  policies(): PolicyInfo[] {
    return listPolicies();
  }

  private session(sessionId: string): Session {
    const session = this.sessions.get(sessionId);
    if (!session) throw new RangeError(`No session '${sessionId}': reset it first.`);
    return session;
  }

  async reset(sessionId: string, dataset: string, options: ResetOptions, policy?: string): Promise<ResetResult> {
    let session = this.sessions.get(sessionId);
    if (!session || session.dataset !== dataset) {
      session = { dataset, env: new SqlEnv(await this.dataset(dataset), this.executor(), this.options.envConfig), first: null, history: [], policy: null, rng: policyRng(0) };
      this.sessions.set(sessionId, session);
    }
    const reset = await session.env.reset(options);
    session.first = reset.observation;
    session.history = [];
    session.rng = policyRng(reset.info.seed);
    session.policy = policy ? createPolicy(policy) : null;
    return reset;
  }

  async step(sessionId: string, action: ActionInput): Promise<StepResult> {
    const session = this.session(sessionId);
    const result = await session.env.step(action);
    session.history.push({ action: result.info.action, observation: result.observation, reward: result.reward });
    return result;
  }

  /** Lets the session's policy choose the next action and plays it (Watch). */
  async policyStep(sessionId: string): Promise<PolicyStep> {
    const session = this.session(sessionId);
    if (!session.policy || !session.first) throw new RangeError(`Session '${sessionId}' has no policy: reset it with one.`);
    const observation = session.history.at(-1)?.observation ?? session.first;
    const decision = await session.policy.act({ first: session.first, history: session.history, observation, question: session.env.currentQuestion(), rng: session.rng });
    const result = await this.step(sessionId, decision.action);
    return { decision, result, step: transcriptStep(result, decision.rawText) };
  }

  async evaluate(request: EvaluationRequest, onProgress?: (done: number, total: number) => void): Promise<EvalReport> {
    const controller = new AbortController();
    this.runs.set(request.runId, controller);
    const executor = this.options.createExecutor();
    try {
      const env = new SqlEnv(await this.dataset(request.dataset), executor, this.options.envConfig);
      return await evaluate(env, createPolicy(request.policy), { episodes: request.episodes, seed: request.seed, split: request.split, onProgress, signal: controller.signal });
    } finally {
      this.runs.delete(request.runId);
      await executor.close();
    }
  }

  cancelEvaluation(runId: string): void {
    this.runs.get(runId)?.abort(new DOMException('Evaluation cancelled', 'AbortError'));
  }

  async close(): Promise<void> {
    for (const controller of this.runs.values()) controller.abort();
    this.sessions.clear();
    await this.interactive?.close();
    this.interactive = null;
  }
}
