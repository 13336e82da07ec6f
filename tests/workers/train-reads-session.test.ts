/**
 * The Train view's toy task "learn to read" through `EnvApi` (src/workers/train-reads-session.ts, hosted by
 * train-service.ts) on the float64 reference model, with the smallest sizes the page accepts: no model loaded, the
 * events a person sees (loading, the SFT stage then the GRPO stage with their own step counts, the result with the
 * exact fixed-answer ceiling and the fresh measures of `freshDatabases × 5` episodes, then 'finished'), a stop that
 * ends the run at once with no result, one run at a time, and sizes checked before anything is built.
 */
import initSqlJs from 'sql.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { ReferenceTrainableModel } from '../../src/train/reference-model.ts';
import { LocalSqlExecutor } from '../../src/sql/executor.ts';
import { createEnvApi, type EnvApi } from '../../src/workers/env-api.ts';
import type { ReadsEvent, ReadsStartRequest } from '../../src/workers/train-protocol.ts';
import { ReadsStopped, readsSizes, resolveReadsRequest, stoppableModel, type ReadsTaskHost } from '../../src/workers/train-reads-session.ts';
import { memoryTrainStore } from '../../src/workers/train-store.ts';
import { testSeed } from '../fixtures/seed.ts';

/** The exact best fixed-answer rate, from the figure (toy-reads-task.ts derives it by enumeration). */
const CEILING = 0.2067;

let sql: Awaited<ReturnType<typeof initSqlJs>>;
let sessions: Array<{ destroyed: boolean }>;
const host: ReadsTaskHost = {
  sql: async () => sql,
  createSession: async (setup, request) => {
    const model = new ReferenceTrainableModel(setup.config, setup.weights, setup.tokenizer, { lora: request.lora, seed: request.seed, contextTokens: request.contextTokens });
    const record = { destroyed: false };
    sessions.push(record);
    return { model, destroy: () => void (record.destroyed = true) };
  },
};

function service(withHost = true, readsTask: ReadsTaskHost = host): EnvApi {
  return createEnvApi({
    createExecutor: () => new LocalSqlExecutor(sql),
    bundleReader: () => {
      throw new Error('no bundles in this test');
    },
    bundleNames: async () => [],
    datasetStore: null,
    trainStore: memoryTrainStore(),
    ...(withHost && { readsTask }),
  });
}

const runSeed = testSeed('tests/workers/train-reads-session.test.ts');
const TINY: ReadsStartRequest = { runSeed, sftSteps: 2, grpoSteps: 1, sftDatabases: 2, grpoDatabases: 1, freshDatabases: 1 };

beforeAll(async () => {
  sql = await initSqlJs();
});

describe('the toy task "learn to read" in the training service', () => {
  it('runs without a loaded model: SFT stage, then GRPO stage, then the result and "finished"', async () => {
    sessions = [];
    const api = service();
    expect(api.modelInfo()).toBeNull();
    const events: ReadsEvent[] = [];
    const statuses: string[] = [];
    await api.startReadsTraining(TINY, (e) => {
      events.push(e);
      if (e.type === 'step') statuses.push(`${api.trainingStatus().phase} ${e.metrics.algo}`);
    });
    const kinds = events.map((e) => (e.type === 'stage' ? `stage ${e.algo}/${e.totalSteps}` : e.type === 'step' ? `step ${e.metrics.algo} ${e.metrics.step}` : e.type === 'phase' ? `phase ${e.phase}` : e.type));
    const story = kinds.filter((k) => k.startsWith('stage') || k.startsWith('step') || k === 'readsResult' || k === 'phase finished' || k === 'phase loading');
    expect(story[0]).toBe('phase loading');
    expect(story.filter((k) => k !== 'phase loading')).toEqual(['stage sft/2', 'step sft 1', 'step sft 2', 'stage grpo/1', 'step grpo 1', 'readsResult', 'phase finished']);
    expect(statuses).toEqual(['running sft', 'running sft', 'running grpo']);
    const stages = events.flatMap((e) => (e.type === 'stage' ? [e.message] : []));
    expect(stages[0]).toMatch(/2 steps on the Oracle's transcripts of 2 databases/);
    expect(stages[1]).toMatch(/1 steps on 1 databases/);
    // The GRPO curve: a greedy evaluation on fresh databases before the first step and after it.
    const evals = events.flatMap((e) => (e.type === 'eval' ? [e.point] : []));
    expect(evals.map((p) => p.step)).toEqual([0, 1]);
    expect(evals.every((p) => p.evalSamples === 5)).toBe(true);
    // Between the stages and after GRPO's last evaluation, the headline says which measure runs.
    const measuring = events.flatMap((e, i) => (e.type === 'phase' && e.message?.startsWith('Measuring') ? [[i, e.message] as const] : []));
    expect(measuring.map(([, m]) => m)).toEqual(['Measuring the control (fresh success after the warm-up) on 5 fresh episodes…', 'Measuring fresh success after GRPO on 5 fresh episodes…']);
    const lastEval = events.findLastIndex((e) => e.type === 'eval');
    expect(measuring[1][0]).toBeGreaterThan(lastEval);
    const result = events.flatMap((e) => (e.type === 'readsResult' ? [e.result] : []))[0];
    expect(result.runSeed).toBe(runSeed);
    expect(result.ceiling).toBeCloseTo(CEILING, 4);
    for (const m of [result.before, result.after]) {
      expect(m.episodes).toBe(5);
      for (const share of [m.success, m.copied, m.answered]) expect(share * 5).toBeCloseTo(Math.round(share * 5), 9);
    }
    expect(api.trainingStatus()).toEqual({ phase: 'idle' });
    expect(sessions).toEqual([{ destroyed: true }]);
  }, 120_000);

  it('stops within the step under way (no later step, no result, "stopped", the model let go) and runs one run at a time', async () => {
    sessions = [];
    const api = service();
    const events: ReadsEvent[] = [];
    const refused: Array<Promise<void>> = [];
    await api.startReadsTraining({ ...TINY, sftSteps: 50 }, (e) => {
      events.push(e);
      if (e.type === 'step' && e.metrics.step === 1) {
        expect(api.trainingStatus()).toMatchObject({ phase: 'running', step: 1, totalSteps: 50 });
        refused.push(api.startReadsTraining(TINY, () => undefined), api.startTraining({ dataset: 'x', config: {} as never }, () => undefined));
        api.stopTraining();
      }
    });
    const steps = events.flatMap((e) => (e.type === 'step' ? [e.metrics.step] : []));
    expect(steps).toEqual([1]);
    expect(events.some((e) => e.type === 'readsResult' || e.type === 'error')).toBe(false);
    const last = events.at(-1);
    expect(last?.type === 'phase' && last.phase).toBe('stopped');
    expect(last?.type === 'phase' && last.message).toMatch(/SFT step 1.*no checkpoint or adapter/);
    expect(sessions).toEqual([{ destroyed: true }]);
    expect(api.trainingStatus()).toEqual({ phase: 'idle' });
    expect(refused).toHaveLength(2);
    for (const p of refused) await expect(p).rejects.toThrow(/A training run is in progress/);
  }, 60_000);

  it('refuses without a host, and refuses bad sizes before building anything', async () => {
    sessions = [];
    await expect(service(false).startReadsTraining(TINY, () => undefined)).rejects.toThrow(/cannot run here/);
    const api = service();
    await expect(api.startReadsTraining({ ...TINY, grpoSteps: 0 }, () => undefined)).rejects.toThrow(/GRPO steps must be a whole number from 1/);
    await expect(api.startReadsTraining({ ...TINY, freshDatabases: 1e9 }, () => undefined)).rejects.toThrow(/Fresh databases/);
    await expect(api.startReadsTraining({ ...TINY, runSeed: -1 }, () => undefined)).rejects.toThrow(/Run seed/);
    expect(sessions).toEqual([]);
  });

  it("names the model the run builds: the form's description is the config its session is given", async () => {
    let shape = '';
    const api = service(true, {
      ...host,
      createSession: async (setup, request) => {
        shape = `${setup.config.numLayers} layers, hidden ${setup.config.hiddenSize}`;
        return host.createSession(setup, request);
      },
    });
    await api.startReadsTraining(TINY, () => undefined);
    expect(shape).toBe('2 layers, hidden 32');
    const defaults = api.readsDefaults();
    expect(defaults.model).toBe(shape);
    expect(defaults.ceiling).toBeCloseTo(CEILING, 4);
  });

  it('fills blank sizes with the run defaults', () => {
    const d = readsSizes();
    expect(resolveReadsRequest({ runSeed: 3 }, d)).toEqual({ runSeed: 3, sftSteps: d.sftSteps, grpoSteps: d.grpoSteps, sftDatabases: d.sftDatabases, grpoDatabases: d.grpoDatabases, freshDatabases: d.freshDatabases });
    expect(resolveReadsRequest({ runSeed: 3, sftDatabases: 7 }, d).sftDatabases).toBe(7);
    expect(() => resolveReadsRequest({ runSeed: 3, grpoDatabases: 0 }, d)).toThrow(/GRPO databases/);
    expect(resolveReadsRequest({ runSeed: 3, grpoSteps: 4 }, d).grpoSteps).toBe(4);
    expect(() => resolveReadsRequest({ runSeed: 3, sftSteps: 2.5 }, d)).toThrow(RangeError);
  });
});

describe('stoppableModel', () => {
  it('refuses every call once stopped, and hands the stop to a decode under way', async () => {
    const seen: Array<AbortSignal | undefined> = [];
    const calls: string[] = [];
    const inner = {
      tokenizer: null as never,
      contextTokens: 64,
      generate: async (_r: unknown, o?: { signal?: AbortSignal }) => (seen.push(o?.signal), calls.push('generate'), []),
      forward: async () => (calls.push('forward'), new Float32Array()),
      backward: async () => void calls.push('backward'),
      optimizerStep: async () => (calls.push('step'), { gradNorm: 0 }),
      readAdapter: async () => null as never,
      loadAdapter: () => undefined,
      readOptimizerState: async () => null as never,
      loadOptimizerState: () => undefined,
    };
    const stop = new AbortController();
    const own = new AbortController();
    const model = stoppableModel(inner, stop.signal);
    await model.generate([], { signal: own.signal });
    await model.forward([]);
    expect(calls).toEqual(['generate', 'forward']);
    stop.abort(new ReadsStopped());
    expect(seen[0]?.aborted).toBe(true); // the decode's signal follows the stop
    for (const call of [() => model.generate([]), () => model.forward([]), () => model.backward(new Float32Array()), () => model.optimizerStep({} as never), () => model.readOptimizerState()]) {
      await expect(call()).rejects.toBeInstanceOf(ReadsStopped);
    }
    expect(calls).toEqual(['generate', 'forward']);
  });
});
