/**
 * Interactive episodes: Play and Watch each hold a session id with its own `SqlEnv` over a dataset, on one SQL
 * executor shared by every session (and by schema reads for the editor). Evaluation runs use executors of their own
 * (evaluation-service.ts), so a runaway query in Play, which restarts its SQL worker, never fails an evaluation that
 * is running at the same time.
 *
 * A session reset with a policy (created from the host's `PolicyRegistry`) can let it choose the next action
 * (`policyStep`); its generator is seeded as `runEpisode` seeds it, so Watch replays what Evaluate records.
 */
import type { Dataset } from '../../data/types.ts';
import type { Rng } from '../../data/rng.ts';
import type { ActionInput } from '../../env/actions.ts';
import { SqlEnv } from '../../env/env.ts';
import type { EnvConfig, Observation, ResetOptions, ResetResult, StepResult } from '../../env/types.ts';
import { policyRng } from '../../eval/episode.ts';
import { generationRecord, transcriptStep } from '../../eval/transcript.ts';
import type { LlmDecision } from '../../policies/llm/llm-policy.ts';
import type { HistoryEntry, Policy } from '../../policies/policy.ts';
import type { PolicyRegistry } from '../../policies/registry.ts';
import type { SqlExecutor } from '../../sql/executor.ts';
import type { TableInfo } from '../../sql/types.ts';
import type { PolicyStep, StepProgress } from '../env-protocol.ts';
import { reportingSteps, throttleProgress } from './progress.ts';

export interface EpisodeServiceDeps {
  dataset: (name: string) => Promise<Dataset>;
  policies: PolicyRegistry;
  /** Makes the interactive SQL executor (once, on first use). */
  createExecutor: () => SqlExecutor;
  envConfig?: Partial<EnvConfig>;
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

/** `onProgress` throttled: a step's start always crosses, token counts at most every interval. */
function throttledSteps(onProgress: (progress: StepProgress) => void): (progress: StepProgress) => void {
  const report = throttleProgress(onProgress, (p: StepProgress) => p.turn !== null && p.turn.newTokens > 0);
  return (p) => report(p);
}

export class EpisodeService {
  private readonly sessions = new Map<string, Session>();
  private interactive: SqlExecutor | null = null;

  constructor(private readonly deps: EpisodeServiceDeps) {}

  private executor(): SqlExecutor {
    this.interactive ??= this.deps.createExecutor();
    return this.interactive;
  }

  private session(sessionId: string): Session {
    const session = this.sessions.get(sessionId);
    if (!session) throw new RangeError(`No session '${sessionId}': reset it first.`);
    return session;
  }

  /**
   * Tables and their columns of a database, for the editor's completion and the schema panel. Reading the schema
   * this way is not an environment step: it costs nothing and is not recorded.
   */
  async schema(dataset: string, dbId: string): Promise<TableInfo[]> {
    const key = `schema:${dataset}/${dbId}`;
    const executor = this.executor();
    await executor.load(key, await (await this.deps.dataset(dataset)).loadDatabase(dbId));
    const tables = await executor.tables(key);
    return Promise.all(tables.map((t) => executor.describe(key, t)));
  }

  /** Starts an episode in the session (made, or remade for another dataset), with a fresh `policy` when named. */
  async reset(sessionId: string, dataset: string, options: ResetOptions, policy?: string): Promise<ResetResult> {
    let session = this.sessions.get(sessionId);
    if (!session || session.dataset !== dataset) {
      session = { dataset, env: new SqlEnv(await this.deps.dataset(dataset), this.executor(), this.deps.envConfig), first: null, history: [], policy: null, rng: policyRng(0) };
      this.sessions.set(sessionId, session);
    }
    const reset = await session.env.reset(options);
    session.first = reset.observation;
    session.history = [];
    session.rng = policyRng(reset.info.seed);
    session.policy = policy ? this.deps.policies.create(policy) : null;
    return reset;
  }

  async step(sessionId: string, action: ActionInput): Promise<StepResult> {
    const session = this.session(sessionId);
    const result = await session.env.step(action);
    session.history.push({ action: result.info.action, observation: result.observation, reward: result.reward });
    return result;
  }

  /**
   * Lets the session's policy choose the next action and plays it (Watch). `onProgress` hears the step's start and,
   * for model policies, the tokens generated so far (at most every `PROGRESS_INTERVAL_MS`).
   */
  async policyStep(sessionId: string, onProgress?: (progress: StepProgress) => void): Promise<PolicyStep> {
    const session = this.session(sessionId);
    if (!session.policy || !session.first) throw new RangeError(`Session '${sessionId}' has no policy: reset it with one.`);
    const observation = session.history.at(-1)?.observation ?? session.first;
    const context = { first: session.first, history: session.history, observation, question: session.env.currentQuestion(), rng: session.rng };
    const policy = onProgress ? reportingSteps(session.policy, throttledSteps(onProgress)) : session.policy;
    const decision = await policy.act(context);
    const result = await this.step(sessionId, decision.action);
    const step = transcriptStep(result, decision.rawText);
    const stats = (decision as Partial<LlmDecision>).stats;
    if (stats) step.generation = generationRecord(stats);
    // Only what the page shows crosses to it: the action and the raw text (not prompt ids or the parse).
    return { decision: { action: decision.action, ...(decision.rawText !== undefined && { rawText: decision.rawText }) }, result, step };
  }

  /** Drops the sessions playing the dataset `name` (it was replaced or forgotten); they must be reset again. */
  forgetDataset(name: string): void {
    for (const [id, s] of this.sessions) if (s.dataset === name) this.sessions.delete(id);
  }

  /** Drops every session and closes the interactive executor. */
  async close(): Promise<void> {
    this.sessions.clear();
    await this.interactive?.close();
    this.interactive = null;
  }
}
