/**
 * Training through `EnvApi` on the float64 reference and the toy task: a real GRPO run streams its events and
 * leaves an adapter that plays as a policy; a checkpoint resumed gives exactly the uninterrupted run; pause, resume
 * and stop; a second run refused while one goes; no model → a clear rejection; out of memory and a lost device end
 * the run with an 'error' event (and a smaller setting); full storage at a checkpoint is a warning and the run goes
 * on; PEFT files of a kept adapter load back as a new adapter with the same tensors.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { GpuOutOfMemoryError } from '../../src/gpu/errors.ts';
import type { StepMetrics, TrainConfig } from '../../src/train/types.ts';
import { DEFAULT_TRAIN_CONFIG } from '../../src/train/types.ts';
import type { EnvApi } from '../../src/workers/env-api.ts';
import type { TrainEvent, TrainStartRequest } from '../../src/workers/train-protocol.ts';
import { memoryTrainStore, type TrainStore } from '../../src/workers/train-store.ts';
import { SMALL_GRPO } from '../train/toy-fixture.ts';
import { trainServiceFixture, type TrainServiceFixture } from './train-fixture.ts';

/** The training tests' small GRPO run, two steps, tracing every step, with the fixture's rank-4 adapter. */
const SMALL: TrainConfig = { ...DEFAULT_TRAIN_CONFIG, ...SMALL_GRPO, steps: 2, traceEvery: 1, maxEpisodeTokens: 256, loraRank: 4, loraAlpha: 8 };

const request = (config: Partial<TrainConfig> = {}, adapterName = 'toy grpo'): TrainStartRequest => ({ dataset: 'toy', config: { ...SMALL, ...config }, adapterName });
const stable = (m: StepMetrics) => ({ ...m, seconds: null, tokensPerSecond: null, etaSeconds: null });
const flat = (a: { layers: Array<Partial<Record<string, { a: { data: ArrayLike<number> }; b: { data: ArrayLike<number> } }>>> }) =>
  a.layers.flatMap((l) => Object.keys(l).sort().flatMap((t) => [...Array.from(l[t]!.a.data), ...Array.from(l[t]!.b.data)]));

let f: TrainServiceFixture;
beforeAll(async () => {
  f = await trainServiceFixture();
});

async function loaded(store: TrainStore = memoryTrainStore()): Promise<EnvApi> {
  const service = f.service(store);
  await service.loadModel({ kind: 'url', url: 'toy' });
  return service;
}

/** The run's 'error' event (fails the test when there is none). */
function errorOf(events: readonly TrainEvent[]): Extract<TrainEvent, { type: 'error' }> {
  const e = events.find((x) => x.type === 'error');
  if (e?.type !== 'error') throw new Error(`no error event in ${JSON.stringify(events.map((x) => x.type))}`);
  return e;
}

function collect(): { events: TrainEvent[]; on: (e: TrainEvent) => void } {
  const events: TrainEvent[] = [];
  return { events, on: (e) => events.push(e) };
}

describe('EnvApi training', () => {
  it('runs GRPO with events, keeps the adapter and plays it as a policy beside the base', async () => {
    const store = memoryTrainStore();
    const service = await loaded(store);
    const { events, on } = collect();
    await service.startTraining(request({ checkpointEvery: 1 }), on);
    expect(events[0]).toMatchObject({ type: 'phase', phase: 'loading' });
    expect(events.filter((e) => e.type === 'phase').map((e) => e.type === 'phase' && e.phase)).toEqual(['loading', 'running', 'finished']);
    expect(events.filter((e) => e.type === 'step').map((e) => e.type === 'step' && e.metrics.step)).toEqual([1, 2]);
    expect(events.filter((e) => e.type === 'trace')).toHaveLength(2);
    const checkpoints = events.flatMap((e) => (e.type === 'checkpoint' ? [e.checkpoint] : []));
    expect(checkpoints.map((c) => c.step)).toEqual([1, 2]);
    expect(checkpoints[1]).toMatchObject({ totalSteps: 2, dataset: 'toy', model: 'toy-model' });
    expect(checkpoints[1].bytes).toBeGreaterThan(0);
    expect(service.trainingStatus()).toEqual({ phase: 'idle' });

    const [adapter] = await service.listAdapters();
    expect(adapter).toMatchObject({ id: 'toy-grpo', name: 'toy grpo', origin: 'trained', baseModel: 'toy-model', rank: 4, alpha: 8, policy: 'qwen+toy-grpo', steps: 2 });
    // The kept adapter is the session's final adapter, exactly.
    const kept = await store.loadAdapter(adapter.id);
    expect(flat(kept!.adapter)).toEqual(flat(await f.sessions.at(-1)!.readAdapter()));
    const history = await service.trainHistory(checkpoints[0].runId);
    expect(history.metrics.map((m) => m.step)).toEqual([1, 2]);
    expect(history.traces).toHaveLength(2);

    // "base vs trained": two policies; the trained one plays an episode to its end.
    expect(service.policies().map((p) => p.name)).toEqual(expect.arrayContaining(['qwen', 'qwen+toy-grpo']));
    await service.reset('w', 'toy', { questionId: 'toy-1', seed: 3 }, 'qwen+toy-grpo');
    let done = false;
    for (let i = 0; i < 10 && !done; i++) done = (await service.policyStep('w')).result.done;
    expect(done).toBe(true);

    await service.deleteAdapter(adapter.id);
    expect(service.policies().map((p) => p.name)).not.toContain('qwen+toy-grpo');
    await service.close();
  });

  it('resuming a checkpoint continues the run exactly as if it had not stopped', async () => {
    const straight = await loaded();
    const a = collect();
    await straight.startTraining(request({ steps: 4 }, 'straight'), a.on);
    const straightMetrics = a.events.flatMap((e) => (e.type === 'step' ? [stable(e.metrics)] : []));
    const straightAdapter = flat(await f.sessions.at(-1)!.readAdapter());
    await straight.close();

    const store = memoryTrainStore();
    const service = await loaded(store);
    const b = collect();
    await service.startTraining(request({ steps: 4, checkpointEvery: 2 }, 'split'), (e) => {
      b.on(e);
      if (e.type === 'checkpoint') service.stopTraining();
    });
    expect(b.events.at(-1)).toMatchObject({ type: 'phase', phase: 'stopped' });
    const [checkpoint] = await service.listCheckpoints();
    expect(checkpoint.step).toBe(2);
    expect((await service.listAdapters())[0].steps).toBe(2); // kept on stop

    const c = collect();
    await service.resumeFromCheckpoint(checkpoint.id, c.on);
    const resumed = c.events.flatMap((e) => (e.type === 'step' ? [stable(e.metrics)] : []));
    expect(resumed.map((m) => m.step)).toEqual([3, 4]);
    expect(resumed).toEqual(straightMetrics.slice(2));
    expect(flat(await f.sessions.at(-1)!.readAdapter())).toEqual(straightAdapter);
    const history = await service.trainHistory(checkpoint.runId);
    expect(history.metrics.map((m) => stable(m))).toEqual(straightMetrics);
    const adapters = await service.listAdapters();
    expect(adapters.map((x) => [x.id, x.steps])).toEqual([['split', 4]]); // the resumed run replaced its adapter
    // The resumed run saved step 4; both of the run's checkpoints are kept (CHECKPOINTS_KEPT = 2) until deleted.
    expect((await service.listCheckpoints()).map((x) => x.step)).toEqual([4, 2]);
    await service.deleteCheckpoint(checkpoint.id);
    expect((await service.listCheckpoints()).map((x) => x.step)).toEqual([4]);
    await service.close();
  });

  it('pauses between steps, resumes, and refuses a second run meanwhile', async () => {
    const service = await loaded();
    // The event log, with a marker where the test calls resumeTraining: the order proves the pause held (no fixed wait).
    const log: Array<TrainEvent | 'resume called'> = [];
    let pausedSeen: () => void = () => undefined;
    const paused = new Promise<void>((resolve) => (pausedSeen = resolve));
    const run = service.startTraining(request({ steps: 3 }), (e) => {
      log.push(e);
      if (e.type === 'step' && e.metrics.step === 1) service.pauseTraining();
      if (e.type === 'phase' && e.phase === 'paused') pausedSeen();
    });
    await paused;
    expect(service.trainingStatus()).toMatchObject({ phase: 'paused', step: 1, totalSteps: 3, dataset: 'toy' });
    await expect(service.startTraining(request(), () => undefined)).rejects.toThrow(/in progress/);
    // Still paused after that round trip through the service.
    expect(service.trainingStatus()).toMatchObject({ phase: 'paused', step: 1 });
    log.push('resume called');
    service.resumeTraining();
    await run;
    const label = (e: TrainEvent | 'resume called') => (e === 'resume called' ? e : e.type === 'phase' ? `phase ${e.phase}` : e.type === 'step' ? `step ${e.metrics.step}` : null);
    const order = log.map(label).filter((x) => x !== null);
    // Nothing moves while paused: step 2 and the 'running' phase come only after resumeTraining was called.
    expect(order).toEqual(['phase loading', 'phase running', 'step 1', 'phase paused', 'resume called', 'phase running', 'step 2', 'step 3', 'phase finished']);
    await service.close();
  });

  it('rejects a start without a loaded model, and a bad config, before any event', async () => {
    const service = f.service(memoryTrainStore());
    const { events, on } = collect();
    await expect(service.startTraining(request(), on)).rejects.toThrow(/No model is loaded/);
    await service.loadModel({ kind: 'url', url: 'toy' });
    await expect(service.startTraining(request({ groupSize: 1 }), on)).rejects.toThrow(/Episodes per prompt \(G\) must be at least 2/);
    expect(events).toEqual([]);
    await service.close();
  });

  it('ends with an error event and a smaller setting when the GPU runs out of memory', async () => {
    const service = await loaded();
    const make = f.makeSession;
    try {
      // At planning: the run is halved where it costs the most.
      f.makeSession = async () => {
        throw new GpuOutOfMemoryError('training plan', 1 << 30, 'Lower the context.');
      };
      const plan = collect();
      await service.startTraining(request(), plan.on);
      expect(plan.events.at(-2)?.type).toBe('error');
      expect(errorOf(plan.events).message).toMatch(/out of GPU memory/);
      expect(errorOf(plan.events).suggestion).toEqual({ promptsPerStep: 1 });
      expect(plan.events.at(-1)).toMatchObject({ type: 'phase', phase: 'failed' });

      // During an update: the trainer names a smaller micro-batch.
      f.makeSession = async (r) => {
        const s = await make(r);
        s.model.optimizerStep = async () => {
          throw new GpuOutOfMemoryError('grad buffer', 1 << 20, '');
        };
        return s;
      };
      const update = collect();
      await service.startTraining(request({ steps: 3 }), update.on);
      const error = errorOf(update.events);
      expect(error.message).toMatch(/tokens per micro-batch/);
      expect(error.suggestion?.microBatchTokens).toBeGreaterThan(0);

      // A lost device: says so, and where to go on from.
      f.makeSession = async (r) => {
        const s = await make(r);
        s.model.forward = async () => {
          throw new Error('mapAsync failed');
        };
        return { ...s, deviceLost: () => new Error('GPU device lost (unknown): driver reset') };
      };
      const lost = collect();
      await service.startTraining(request(), lost.on);
      expect(errorOf(lost.events).message).toMatch(/device was lost.*resume from the last checkpoint/);
      expect(service.trainingStatus()).toEqual({ phase: 'idle' });
    } finally {
      f.makeSession = make;
      await service.close();
    }
  });

  it('warns and goes on when storage is full at a checkpoint, keeping what was saved', async () => {
    // Room for about one checkpoint (adapter + two moments) and nothing more.
    const probe = memoryTrainStore();
    const probeService = await loaded(probe);
    await probeService.startTraining(request({ steps: 1, checkpointEvery: 1 }), () => undefined);
    const oneCheckpoint = (await probe.listCheckpoints())[0].bytes;
    await probeService.close();

    const service = await loaded(memoryTrainStore({ quotaBytes: oneCheckpoint * 1.5 }));
    const { events, on } = collect();
    await service.startTraining(request({ steps: 3, checkpointEvery: 1 }), on);
    expect(events.find((e) => e.type === 'error')).toBeUndefined();
    expect(events.filter((e) => e.type === 'step')).toHaveLength(3);
    const warnings = events.flatMap((e) => (e.type === 'phase' && e.message?.includes('was not saved') ? [e] : []));
    expect(warnings.map((w) => w.phase)).toEqual(['running', 'running']); // steps 2 and 3
    expect(warnings[0].message).toMatch(/storage is full, so the checkpoint of step 2 was not saved \(earlier saves are kept\).*Training goes on/);
    expect(events.at(-1)).toEqual({ type: 'phase', phase: 'finished' });
    expect((await service.listCheckpoints()).map((c) => c.step)).toEqual([1]);
    expect((await service.listAdapters()).map((a) => a.steps)).toEqual([3]); // an adapter is a third of a checkpoint: it fit
    await service.close();
  });

  it('writes a kept adapter as PEFT files that load back as a new adapter with the same tensors', async () => {
    const store = memoryTrainStore();
    const service = await loaded(store);
    await service.startTraining(request({ steps: 1 }, 'peft'), () => undefined);
    const files = await service.adapterFiles('peft');
    expect(JSON.parse(files['adapter_config.json'])).toMatchObject({ peft_type: 'LORA', r: 4, lora_alpha: 8, base_model_name_or_path: 'toy-model' });
    const info = await service.loadAdapterFiles({ safetensors: files['adapter_model.safetensors'], configJson: files['adapter_config.json'] }, 'peft');
    expect(info).toMatchObject({ id: 'peft-2', origin: 'file', policy: 'qwen+peft-2', rank: 4 });
    const original = (await store.loadAdapter('peft'))!.adapter;
    const back = (await store.loadAdapter('peft-2'))!.adapter;
    expect(flat(back)).toEqual(flat(original).map(Math.fround)); // F32 files of f64 reference tensors
    expect(service.policies().map((p) => p.name)).toEqual(expect.arrayContaining(['qwen+peft', 'qwen+peft-2']));
    await expect(service.adapterFiles('nope')).rejects.toThrow(/No adapter 'nope'/);
    service.unloadModel();
    expect(service.policies().map((p) => p.name)).not.toEqual(expect.arrayContaining(['qwen']));
    expect(service.policies().map((p) => p.name)).not.toEqual(expect.arrayContaining(['qwen+peft']));
    await expect(service.loadAdapterFiles({ safetensors: files['adapter_model.safetensors'], configJson: files['adapter_config.json'] }, 'x')).rejects.toThrow(/No model is loaded/);
    await service.close();
  });
});
