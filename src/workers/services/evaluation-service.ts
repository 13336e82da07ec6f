/**
 * Evaluation runs (Evaluate): a policy from the host's `PolicyRegistry` plays a question set of a dataset, with
 * progress, on a SQL executor of its own per run (so Play's runaway queries never fail it). Runs are cancelled by id.
 */
import type { Dataset } from '../../data/types.ts';
import { SqlEnv } from '../../env/env.ts';
import type { EnvConfig } from '../../env/types.ts';
import { evaluate, type EvalReport } from '../../eval/evaluate.ts';
import type { PolicyRegistry } from '../../policies/registry.ts';
import type { SqlExecutor } from '../../sql/executor.ts';
import type { EvaluationRequest } from '../env-protocol.ts';

export interface EvaluationServiceDeps {
  dataset: (name: string) => Promise<Dataset>;
  policies: PolicyRegistry;
  /** Makes a SQL executor; called once per run, and closed after. */
  createExecutor: () => SqlExecutor;
  envConfig?: Partial<EnvConfig>;
}

export class EvaluationService {
  private readonly runs = new Map<string, AbortController>();

  constructor(private readonly deps: EvaluationServiceDeps) {}

  async evaluate(request: EvaluationRequest, onProgress?: (done: number, total: number) => void): Promise<EvalReport> {
    const controller = new AbortController();
    this.runs.set(request.runId, controller);
    const executor = this.deps.createExecutor();
    try {
      const env = new SqlEnv(await this.deps.dataset(request.dataset), executor, this.deps.envConfig);
      return await evaluate(env, this.deps.policies.create(request.policy), { episodes: request.episodes, seed: request.seed, split: request.split, onProgress, signal: controller.signal });
    } finally {
      this.runs.delete(request.runId);
      await executor.close();
    }
  }

  cancelEvaluation(runId: string): void {
    this.runs.get(runId)?.abort(new DOMException('Evaluation cancelled', 'AbortError'));
  }

  /** Stops every run in progress. */
  close(): void {
    for (const controller of this.runs.values()) controller.abort();
  }
}
