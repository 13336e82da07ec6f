/**
 * GRPO's KL reference adapter in checkpoints (train-checkpoint.ts, train-service.ts), on the float64 reference and
 * the toy task: after an SFT warm-up, GRPO with klBeta > 0 anchors to the warm-up's adapter; a run stopped at a
 * checkpoint and resumed keeps that anchor, so its steps (KL included) are the uninterrupted run's. A checkpoint whose
 * reference is damaged (wrong shape, NaN, another rank, not an adapter) is refused before any model is made, and the
 * checkpoint stays; one saved before references were kept resumes with a warning.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { LoraAdapter } from '../../src/model/lora.ts';
import type { StepMetrics, TrainConfig } from '../../src/train/types.ts';
import { DEFAULT_TRAIN_CONFIG } from '../../src/train/types.ts';
import type { EnvApi } from '../../src/workers/env-api.ts';
import { CheckpointFileError } from '../../src/workers/train-checkpoint.ts';
import type { TrainEvent, TrainStartRequest } from '../../src/workers/train-protocol.ts';
import { memoryTrainStore, type StoredCheckpoint, type TrainStore } from '../../src/workers/train-store.ts';
import { SMALL_GRPO } from '../train/toy-fixture.ts';
import { trainServiceFixture, type TrainServiceFixture } from './train-fixture.ts';

/** The training tests' small GRPO run, four steps, anchored to the warm-up's adapter (klBeta > 0). */
const GRPO: TrainConfig = { ...DEFAULT_TRAIN_CONFIG, ...SMALL_GRPO, steps: 4, maxEpisodeTokens: 256, loraRank: 4, loraAlpha: 8, klBeta: 0.5 };
const WARM_UP: Partial<TrainConfig> = { algo: 'sft', steps: 3, lr: 0.05, sftExamplesPerStep: 4 };

const stable = (m: StepMetrics) => ({ ...m, seconds: null, tokensPerSecond: null, etaSeconds: null });
const flat = (a: LoraAdapter) => a.layers.flatMap((l) => Object.keys(l).sort().flatMap((t) => { const p = l[t as keyof typeof l]!; return [...Array.from(p.a.data), ...Array.from(p.b.data)]; }));
const stepsOf = (events: readonly TrainEvent[]) => events.flatMap((e) => (e.type === 'step' ? [stable(e.metrics)] : []));

let f: TrainServiceFixture;
beforeAll(async () => {
  f = await trainServiceFixture();
});

/** A service with a model loaded and the SFT warm-up's adapter kept (its id returned). */
async function warmedUp(store: TrainStore): Promise<{ service: EnvApi; warmId: string; warm: LoraAdapter }> {
  const service = f.service(store);
  await service.loadModel({ kind: 'url', url: 'toy' });
  await service.startTraining({ dataset: 'toy', config: { ...GRPO, ...WARM_UP }, adapterName: 'warm' }, () => undefined);
  const [info] = await service.listAdapters();
  return { service, warmId: info.id, warm: (await store.loadAdapter(info.id))!.adapter };
}

const grpoFrom = (warmId: string, name: string, config: Partial<TrainConfig> = {}): TrainStartRequest => ({ dataset: 'toy', config: { ...GRPO, ...config }, adapterName: name, initAdapterId: warmId });

/** Runs GRPO from the warm-up with a checkpoint at step 2 and stops there; the checkpoint. */
async function stoppedAtStep2(service: EnvApi, store: TrainStore, warmId: string): Promise<StoredCheckpoint> {
  await service.startTraining(grpoFrom(warmId, 'split', { checkpointEvery: 2 }), (e) => {
    if (e.type === 'checkpoint') service.stopTraining();
  });
  const [info] = await service.listCheckpoints();
  expect(info.step).toBe(2);
  return (await store.loadCheckpoint(info.id))!;
}

describe('the KL reference adapter in checkpoints', () => {
  it('a resumed GRPO run anchors its KL where the uninterrupted run does (the warm-up adapter), step for step', async () => {
    const store = memoryTrainStore();
    const { service, warmId, warm } = await warmedUp(store);
    const a: TrainEvent[] = [];
    await service.startTraining(grpoFrom(warmId, 'straight'), (e) => a.push(e));
    const straightSteps = stepsOf(a);
    // The anchor matters here: two steps away from the warm-up, the policy's KL to it is clearly above 0.
    expect(straightSteps[2].kl).toBeGreaterThan(1e-6);

    const saved = await stoppedAtStep2(service, store, warmId);
    // The checkpoint holds the frozen warm-up adapter (not its own, which two GRPO steps moved), and counts its bytes.
    expect(flat(saved.referenceAdapter!)).toEqual(flat(warm));
    expect(flat(saved.adapter)).not.toEqual(flat(warm));
    expect(saved.info.bytes).toBeGreaterThan(8 * flat(saved.adapter).length);

    const c: TrainEvent[] = [];
    await service.resumeFromCheckpoint(saved.info.id, (e) => c.push(e));
    const resumed = stepsOf(c);
    expect(resumed.map((m) => m.step)).toEqual([3, 4]);
    // Anchored to the checkpoint's own adapter instead, step 3's KL would be exactly 0 (its first forward is the reference).
    expect(resumed[0].kl).toBeCloseTo(straightSteps[2].kl!, 12);
    expect(resumed).toEqual(straightSteps.slice(2));
    await service.close();
  });

  it('refuses a checkpoint whose reference is damaged, before making a model, and keeps the checkpoint', async () => {
    const store = memoryTrainStore();
    const { service, warmId } = await warmedUp(store);
    const saved = await stoppedAtStep2(service, store, warmId);
    const reference = saved.referenceAdapter!;
    const pair = (r: LoraAdapter) => Object.values(r.layers[1])[0];
    const damaged: Array<[string, unknown, RegExp]> = [
      ['a B tensor of another shape', (() => { const r = structuredClone(reference); pair(r).b = { shape: [3, 1], data: new Float32Array(3) }; return r; })(), /KL reference adapter tensor .*layers\.1\..*lora_B.*shape \[3, 1\]/],
      ['a NaN', (() => { const r = structuredClone(reference); pair(r).a.data[5] = NaN; return r; })(), /KL reference adapter tensor .*lora_A.*value 5 is NaN/],
      ['another rank', { ...structuredClone(reference), config: { ...reference.config, rank: 2 } }, /KL reference adapter/],
      ['not an adapter', 7, /KL reference adapter is not an adapter/],
    ];
    for (const [what, value, message] of damaged) {
      await store.saveCheckpoint({ ...saved, referenceAdapter: value as LoraAdapter }, 2);
      const sessions = f.sessions.length;
      const events: TrainEvent[] = [];
      const refused = service.resumeFromCheckpoint(saved.info.id, (e) => events.push(e));
      await expect(refused, what).rejects.toThrow(CheckpointFileError);
      await expect(refused, what).rejects.toThrow(message);
      expect(events, what).toEqual([]);
      expect(f.sessions.length, what).toBe(sessions);
      expect((await service.listCheckpoints()).map((x) => x.id), what).toContain(saved.info.id);
    }
    await service.close();
  });

  it('resumes a checkpoint saved before references were kept, saying where its KL now anchors', async () => {
    const store = memoryTrainStore();
    const { service, warmId } = await warmedUp(store);
    const saved = await stoppedAtStep2(service, store, warmId);
    const old: StoredCheckpoint = { ...saved };
    delete old.referenceAdapter;
    await store.saveCheckpoint(old, 2);
    const events: TrainEvent[] = [];
    await service.resumeFromCheckpoint(saved.info.id, (e) => events.push(e));
    expect(events.some((e) => e.type === 'phase' && /before checkpoints kept the KL reference/.test(e.message ?? ''))).toBe(true);
    expect(stepsOf(events).map((m) => m.step)).toEqual([3, 4]);
    await service.close();
  });
});
