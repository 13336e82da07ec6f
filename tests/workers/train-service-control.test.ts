/**
 * A run's record and controls through `EnvApi` (src/workers/train-service.ts) on the float64 reference: 'progress'
 * events from loading on; the active-run record (request, model and where it came from, step, newest checkpoint)
 * kept while the run goes and deleted when it ends; a stop because the page is leaving keeps it, so the next page
 * lists the run as interrupted (and can discard it); a stopped run saves a checkpoint of its last step; a pause is
 * reported once the trainer has actually paused, with a note on what Resume does that matches where it paused.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { TrainConfig } from '../../src/train/types.ts';
import { DEFAULT_TRAIN_CONFIG } from '../../src/train/types.ts';
import type { EnvApi } from '../../src/workers/env-api.ts';
import type { ActiveRunRecord, TrainEvent, TrainStartRequest } from '../../src/workers/train-protocol.ts';
import { loadCancelled } from '../../src/workers/llm-source.ts';
import { pauseNote, recordedSource } from '../../src/workers/train-service.ts';
import { memoryTrainStore, type TrainStore } from '../../src/workers/train-store.ts';
import { trainServiceFixture, type TrainServiceFixture } from './train-fixture.ts';

const SMALL: TrainConfig = {
  ...DEFAULT_TRAIN_CONFIG,
  algo: 'grpo',
  steps: 3,
  lr: 0.02,
  warmupSteps: 0,
  groupSize: 2,
  promptsPerStep: 1,
  maxTurns: 1,
  maxNewTokensPerTurn: 3,
  maxEpisodeTokens: 256,
  evalEvery: 0,
  traceEvery: 0,
  checkpointEvery: 0,
  loraRank: 4,
  loraAlpha: 8,
};

const request = (config: Partial<TrainConfig> = {}): TrainStartRequest => ({ dataset: 'toy', config: { ...SMALL, ...config }, adapterName: 'toy run' });

let f: TrainServiceFixture;
beforeAll(async () => {
  f = await trainServiceFixture();
});

async function loaded(store: TrainStore): Promise<EnvApi> {
  const service = f.service(store);
  await service.loadModel({ kind: 'url', url: 'models/toy/' }, { weights: 'f16' });
  return service;
}

describe('EnvApi training: progress, the active-run record, stop and pause', () => {
  it('reports progress from loading on, and keeps a record of the run only while it goes', async () => {
    const store = memoryTrainStore();
    const service = await loaded(store);
    const events: TrainEvent[] = [];
    const records: Array<ActiveRunRecord[]> = [];
    await service.startTraining(request({ checkpointEvery: 2 }), (e) => {
      events.push(e);
      if (e.type === 'step' || e.type === 'checkpoint') void store.listActiveRuns!().then((r) => records.push(r));
    });
    const progress = events.flatMap((e) => (e.type === 'progress' ? [e.progress] : []));
    expect(progress[0]).toMatchObject({ activity: 'loading', text: 'Loading toy-model for training' });
    expect(new Set(progress.map((p) => p.activity))).toEqual(new Set(['loading', 'rollout', 'update', 'checkpoint']));
    const during = records.flat();
    expect(during.length).toBeGreaterThan(0);
    expect(during[0]).toMatchObject({ model: 'toy-model', source: { kind: 'url', url: 'models/toy/' }, modelSettings: { weights: 'f16' }, totalSteps: 3, request: { dataset: 'toy' } });
    expect(during.some((r) => r.checkpointId !== null && r.checkpointStep === 2)).toBe(true);
    expect(await store.listActiveRuns!()).toEqual([]);
    expect(await service.interruptedTrainingRuns()).toEqual([]);
  });

  it('keeps the record of a run stopped because the page is leaving, with a checkpoint of its last step to resume', async () => {
    const store = memoryTrainStore();
    const service = await loaded(store);
    const events: TrainEvent[] = [];
    await service.startTraining(request(), (e) => {
      events.push(e);
      if (e.type === 'step' && e.metrics.step === 1) service.stopTraining({ leaving: true });
    });
    expect(events.filter((e) => e.type === 'phase').at(-1)).toMatchObject({ phase: 'stopped' });
    const checkpoints = await service.listCheckpoints();
    expect(checkpoints.map((c) => c.step)).toEqual([1]);
    // A fresh page (a new service on the same storage) sees the interrupted run.
    const next = await loaded(store);
    const [record] = await next.interruptedTrainingRuns();
    expect(record).toMatchObject({ step: 1, totalSteps: 3, checkpointId: checkpoints[0].id, checkpointStep: 1, model: 'toy-model' });
    await next.resumeFromCheckpoint(record.checkpointId!, () => undefined);
    expect(await next.interruptedTrainingRuns()).toEqual([]);
  });

  it('forgets the record of a run stopped by the user, and discards an interrupted one on request', async () => {
    const store = memoryTrainStore();
    const service = await loaded(store);
    await service.startTraining(request(), (e) => {
      if (e.type === 'step') service.stopTraining();
    });
    expect(await service.interruptedTrainingRuns()).toEqual([]);
    expect((await service.listCheckpoints()).map((c) => c.step)).toEqual([1]); // resumable from where it stopped
    await store.saveActiveRun!({ runId: 'old', request: request(), model: 'toy-model', source: null, step: 0, totalSteps: 3, checkpointId: null, checkpointStep: 0, startedAt: 1, updatedAt: 1 });
    expect((await service.interruptedTrainingRuns()).map((r) => r.runId)).toEqual(['old']);
    await service.discardInterruptedRun('old');
    expect(await service.interruptedTrainingRuns()).toEqual([]);
  });

  it("reports 'paused' once the trainer has paused, and 'running' once it goes on", async () => {
    const service = await loaded(memoryTrainStore());
    const phases: string[] = [];
    let paused = false;
    await service.startTraining(request({ steps: 2 }), (e) => {
      if (e.type === 'phase') phases.push(e.phase);
      if (e.type === 'progress' && e.progress.activity === 'rollout' && !paused) {
        paused = true;
        service.pauseTraining();
        expect(phases.at(-1)).toBe('running'); // not yet: it pauses at its next decode step
      }
      if (e.type === 'phase' && e.phase === 'paused') setTimeout(() => service.resumeTraining(), 0);
    });
    expect(phases).toEqual(['loading', 'running', 'paused', 'running', 'finished']);
  });

  it('says truthfully what Resume does: a paused update goes on (nothing redone), paused rollouts start again', async () => {
    const service = await loaded(memoryTrainStore());
    /** The activity reported last before each 'paused' phase (where the pause took hold), and the phase's note. */
    const notes: Array<[string, string | undefined]> = [];
    let last = '';
    let asked = 0;
    // KL β > 0: every step updates, whatever the rewards.
    await service.startTraining(request({ steps: 2, klBeta: 0.01 }), (e) => {
      if (e.type === 'progress') {
        last = e.progress.activity;
        // Step 1: pause while its episodes are generated (asked at the rollout's first report, which is never
        // throttled: a token-by-token report comes only after 100 ms, and a fast run is done by then); step 2: while
        // its update's forward pass runs.
        const inRollout = e.progress.activity === 'rollout' && e.progress.step === 1 && e.progress.done < e.progress.total;
        const inUpdate = e.progress.activity === 'update' && e.progress.step === 2 && /: forward pass/.test(e.progress.text);
        if ((asked === 0 && inRollout) || (asked === 1 && inUpdate)) {
          asked++;
          service.pauseTraining();
        }
      }
      if (e.type === 'phase' && e.phase === 'paused') {
        notes.push([last, e.message]);
        setTimeout(() => service.resumeTraining(), 0);
      }
    });
    expect(asked).toBe(2);
    const expected: Record<string, string> = { rollout: pauseNote('generation'), update: pauseNote('update') };
    expect(notes.map(([activity]) => activity)).toContain('update');
    for (const [activity, note] of notes) expect(note).toBe(expected[activity]);
    expect(pauseNote('update')).toMatch(/inside the update.*nothing is redone/);
    expect(pauseNote('generation')).toMatch(/again from their beginning/);
  });

  it('a stop while the model loads aborts the loading: the run ends stopped, not failed, and the next one can start', async () => {
    const store = memoryTrainStore();
    const service = await loaded(store);
    const make = f.makeSession;
    let signalled: AbortSignal | undefined;
    // A load that only ends when it is aborted (as reading a big model again would take minutes).
    f.makeSession = (r) => {
      signalled = r.signal;
      return new Promise((_resolve, reject) => r.signal?.addEventListener('abort', () => reject(loadCancelled('toy-model'))));
    };
    const events: TrainEvent[] = [];
    let stopped = false;
    try {
      await service.startTraining(request(), (e) => {
        events.push(e);
        // Once the reading has begun (its first 'phase' message comes from the service, the factory is called after).
        if (e.type === 'phase' && e.phase === 'loading' && !stopped) {
          stopped = true;
          setTimeout(() => service.stopTraining(), 0);
        }
      });
    } finally {
      f.makeSession = make;
    }
    expect(signalled?.aborted).toBe(true);
    expect(events.filter((e) => e.type === 'error')).toEqual([]);
    expect(events.at(-1)).toMatchObject({ type: 'phase', phase: 'stopped' });
    expect(service.trainingStatus()).toEqual({ phase: 'idle' });
    expect(await service.interruptedTrainingRuns()).toEqual([]);
    const next: string[] = [];
    await service.startTraining(request({ steps: 1 }), (e) => e.type === 'phase' && next.push(e.phase));
    expect(next.at(-1)).toBe('finished');
  });

  it('records a picked folder by its name only', () => {
    expect(recordedSource({ kind: 'files', files: [{ path: 'Qwen3-0.6B/config.json', data: new Uint8Array() }] })).toEqual({ kind: 'files', folder: 'Qwen3-0.6B' });
    expect(recordedSource({ kind: 'hub', repo: 'Qwen/Qwen3-0.6B' })).toEqual({ kind: 'hub', repo: 'Qwen/Qwen3-0.6B' });
    expect(recordedSource(undefined)).toBeNull();
  });
});
