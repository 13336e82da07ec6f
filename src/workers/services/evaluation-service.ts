/**
 * Evaluation runs (Evaluate): a policy from the host's `PolicyRegistry` plays a question set of a dataset, with
 * progress, on a SQL executor of its own per run (so Play's runaway queries never fail it). Runs are cancelled by id.
 *
 * Progress: `onProgress(done, total, current)` is called once at the start (0 done), after each episode (`current`
 * null), at each model turn's start, and in between as steps start and tokens come (throttled to
 * `PROGRESS_INTERVAL_MS`), so a page shows movement within an episode that takes minutes. Cancel takes effect at the
 * next step or token of every episode in play.
 *
 * Concurrency: a policy that decodes several sequences together (`Policy.concurrency`, the loaded model's decode
 * slots) plays that many episodes at once (evaluate-concurrently.ts), each in its own `SqlEnv` on the run's executor;
 * questions, seeds, order and records are those of one at a time. `current` is then the step of the episode that
 * reported last.
 */
import type { Dataset } from '../../data/types.ts';
import { SqlEnv } from '../../env/env.ts';
import type { EnvConfig } from '../../env/types.ts';
import { evaluationPlan, type EvalReport } from '../../eval/evaluate.ts';
import { evaluateConcurrently } from '../../eval/evaluate-concurrently.ts';
import type { PolicyRegistry } from '../../policies/registry.ts';
import type { SqlExecutor } from '../../sql/executor.ts';
import type { EvaluationRequest, StepProgress } from '../env-protocol.ts';
import { reportingSteps, throttleProgress } from './progress.ts';
import { CancelledError } from '../../util/cancelled.ts';

export interface EvaluationServiceDeps {
  dataset: (name: string) => Promise<Dataset>;
  policies: PolicyRegistry;
  /** Makes a SQL executor; called once per run, and closed after. */
  createExecutor: () => SqlExecutor;
  envConfig?: Partial<EnvConfig>;
}

/** Episodes done, episodes in all, and the step in play (null at the start and between episodes). */
export type EvaluationProgressCallback = (done: number, total: number, current?: StepProgress | null) => void;

export class EvaluationService {
  private readonly runs = new Map<string, AbortController>();

  constructor(private readonly deps: EvaluationServiceDeps) {}

  async evaluate(request: EvaluationRequest, onProgress?: EvaluationProgressCallback): Promise<EvalReport> {
    const controller = new AbortController();
    this.runs.set(request.runId, controller);
    const executor = this.deps.createExecutor();
    try {
      const dataset = await this.deps.dataset(request.dataset);
      const createEnv = () => new SqlEnv(dataset, executor, this.deps.envConfig);
      const options = { episodes: request.episodes, seed: request.seed, split: request.split, signal: controller.signal };
      let done = 0;
      const probe = createEnv();
      let total: number;
      try {
        total = evaluationPlan(probe, options).total;
      } finally {
        probe.close();
      }
      // An episode's end and a model turn's start (its prompt) always cross; step starts and token counts at most
      // every interval (a fast policy plays thousands of steps a second).
      const report = throttleProgress(onProgress && ((current: StepProgress | null) => onProgress(done, total, current)), (c) => c !== null && c.turn?.newTokens !== 0);
      report(null, true);
      // Cancel takes effect at the next step or token, not only between episodes (a model's episode may take minutes).
      const played = this.deps.policies.create(request.policy);
      const policy = reportingSteps(played, (current) => {
        controller.signal.throwIfAborted();
        report(current);
      });
      return await evaluateConcurrently(createEnv, policy, {
        ...options,
        concurrency: played.concurrency ?? 1,
        onProgress: (d) => {
          done = d;
          report(null, true);
        },
      });
    } finally {
      this.runs.delete(request.runId);
      await executor.close();
    }
  }

  cancelEvaluation(runId: string): void {
    this.runs.get(runId)?.abort(new CancelledError('Evaluation cancelled; nothing was saved.'));
  }

  /** Stops every run in progress. */
  close(): void {
    for (const controller of this.runs.values()) controller.abort();
  }
}
