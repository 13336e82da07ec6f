/**
 * What the two model services (model-service.ts for the WebGPU engine, tjs-model-service.ts for transformers.js)
 * share: one cancellable load at a time, and the Oracle transcripts their few-shot prompts are built from.
 */
import type { Dataset } from '../../data/types.ts';
import { SqlEnv } from '../../env/env.ts';
import type { EnvConfig } from '../../env/types.ts';
import { buildOracleShots, selectShotQuestions, type Shot } from '../../policies/llm/prompt.ts';
import type { SqlExecutor } from '../../sql/executor.ts';
import { CancelledError } from '../../util/cancelled.ts';

const cancelled = (): CancelledError => new CancelledError('Model load cancelled; the model held before stays loaded.');

/**
 * One load at a time: starting one cancels the one running; a load cancelled while it ran frees what it made and
 * rejects with a CancelledError, so the model held before stays.
 */
export class CancellableLoad {
  private current: AbortController | null = null;

  async run<T extends { destroy(): void }>(start: (signal: AbortSignal) => Promise<T>): Promise<T> {
    this.current?.abort(cancelled());
    const controller = new AbortController();
    this.current = controller;
    let made: T;
    try {
      made = await start(controller.signal);
    } finally {
      if (this.current === controller) this.current = null;
    }
    if (controller.signal.aborted) {
      made.destroy();
      throw cancelled();
    }
    return made;
  }

  /** Stops the load in progress, if any (a Hub download keeps its bytes and resumes next time). */
  cancel(): void {
    this.current?.abort(cancelled());
  }
}

export interface ShotSources {
  dataset: (name: string) => Promise<Dataset>;
  createExecutor: () => SqlExecutor;
  envConfig?: Partial<EnvConfig>;
}

/** `count` Oracle transcripts of train questions of `dataset`, played on a SQL executor of their own. */
export async function oracleShots(deps: ShotSources, dataset: string, count: number): Promise<Shot[]> {
  const data = await deps.dataset(dataset);
  const executor = deps.createExecutor();
  try {
    return await buildOracleShots(new SqlEnv(data, executor, deps.envConfig), selectShotQuestions(data, count));
  } finally {
    await executor.close();
  }
}
