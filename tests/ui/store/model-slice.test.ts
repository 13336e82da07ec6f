/**
 * The model slice's actions (src/ui/store/model-slice.ts), moved there from the Model panel's module so that views
 * call actions and the store is written by its slices only (issue 28): a load lists the model's policy and chooses it
 * in Watch, remembers the model loaded last and persists it; a cancelled load keeps the model held before and says
 * so; an unload forgets the model and Watch falls back to Oracle. And the train slice's interrupted run: resuming a
 * run whose Hub model is not loaded loads it first through the same action. The worker client is a fake that records
 * what it was asked.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { PolicyInfo } from '../../../src/policies/registry.ts';
import { CancelledError } from '../../../src/util/cancelled.ts';
import type { TrainConfig } from '../../../src/train/types.ts';
import type { LlmSource } from '../../../src/workers/llm-source.ts';
import type { ActiveRunRecord } from '../../../src/workers/train-protocol.ts';

const worker = {
  listed: ['random', 'oracle'],
  /** The model the worker holds: its label, or null. */
  held: null as string | null,
  /** The next load fails with this error instead of loading. */
  loadError: null as Error | null,
  calls: [] as string[],
};

const infos = (): PolicyInfo[] => worker.listed.map((name) => ({ name, label: name, description: `plays ${name}` }));
const info = (label: string) => ({ label, policy: 'qwen' });

vi.mock('../../../src/workers/env-client.ts', () => ({
  callback: <T>(f: T) => f,
  envClient: () => ({
    policies: async () => infos(),
    loadModel: async (source: LlmSource, _settings: unknown, onProgress: (p: unknown) => void) => {
      worker.calls.push(`loadModel ${source.kind === 'hub' ? source.repo : source.kind}`);
      onProgress({ phase: 'download', loaded: 1, total: 2 });
      if (worker.loadError) throw worker.loadError;
      worker.held = source.kind === 'hub' ? source.repo : 'folder';
      worker.listed = ['random', 'oracle', 'qwen'];
      return info(worker.held);
    },
    modelInfo: async () => (worker.held ? info(worker.held) : null),
    unloadModel: async () => {
      worker.calls.push('unloadModel');
      worker.held = null;
      worker.listed = ['random', 'oracle'];
    },
    listCheckpoints: async () => [],
    listAdapters: async () => [],
    discardInterruptedRun: async (id: string) => void worker.calls.push(`discard ${id}`),
    startTraining: async () => void worker.calls.push('startTraining'),
    stopTraining: async () => undefined,
  }),
}));

const saved = new Map<string, string>();
vi.stubGlobal('window', { localStorage: { getItem: (k: string) => saved.get(k) ?? null, setItem: (k: string, v: string) => saved.set(k, v), removeItem: (k: string) => saved.delete(k) } });

const { persistedState, useStore } = await import('../../../src/ui/store/store.ts');
const { CANCELLED } = await import('../../../src/ui/store/model-slice.ts');

const HUB: LlmSource = { kind: 'hub', repo: 'Qwen/Qwen3-0.6B' };

beforeEach(() => {
  Object.assign(worker, { listed: ['random', 'oracle'], held: null, loadError: null, calls: [] });
  useStore.setState({ modelStatus: 'idle', modelInfo: null, modelProgress: null, modelError: null, lastModel: null, interruptedRun: null, trainRun: null, trainNotice: null });
  useStore.getState().applyPolicyList(infos());
});

describe('the model slice', () => {
  it('loads a model: its policy is listed and chosen in Watch, and the model loaded last persists', async () => {
    await useStore.getState().loadModelWithSettings(HUB, {});
    const s = useStore.getState();
    expect(s.modelStatus).toBe('ready');
    expect(s.modelInfo?.label).toBe('Qwen/Qwen3-0.6B');
    expect(s.modelProgress).toEqual({ phase: 'download', loaded: 1, total: 2 });
    expect(s.policyInfos?.map((p) => p.name)).toEqual(['random', 'oracle', 'qwen']);
    expect(s.watchOptions.policy).toBe('qwen');
    expect(persistedState(s).lastModel).toEqual({ kind: 'hub', label: 'Qwen/Qwen3-0.6B' });
  });

  it('keeps the model held before when a load is cancelled, and says so', async () => {
    await useStore.getState().loadModelWithSettings(HUB, {});
    worker.loadError = new CancelledError('stopped');
    await useStore.getState().loadModelWithSettings({ kind: 'url', url: '/models/tiny/' }, {});
    const s = useStore.getState();
    expect(s.modelStatus).toBe('ready');
    expect(s.modelInfo?.label).toBe('Qwen/Qwen3-0.6B');
    expect(s.modelError?.startsWith(`${CANCELLED} Qwen/Qwen3-0.6B is still loaded.`)).toBe(true);
  });

  it('says a failed first load failed (error, nothing held)', async () => {
    worker.loadError = new Error('config.json is missing');
    await useStore.getState().loadModelWithSettings(HUB, {});
    expect(useStore.getState()).toMatchObject({ modelStatus: 'error', modelInfo: null, modelError: 'config.json is missing' });
  });

  it('unloads: the model and the model loaded last are forgotten, and Watch falls back to Oracle', async () => {
    await useStore.getState().loadModelWithSettings(HUB, {});
    await useStore.getState().unloadModel();
    const s = useStore.getState();
    expect(s).toMatchObject({ modelStatus: 'idle', modelInfo: null, lastModel: null });
    expect(s.watchOptions.policy).toBe('oracle');
    expect(s.policyInfos?.map((p) => p.name)).toEqual(['random', 'oracle']);
  });
});

describe("the train slice's interrupted run", () => {
  const record: ActiveRunRecord = {
    runId: 'run-1',
    model: 'Qwen/Qwen3-0.6B',
    source: { kind: 'hub', repo: 'Qwen/Qwen3-0.6B' },
    modelSettings: {},
    step: 1,
    totalSteps: 3,
    checkpointId: null,
    checkpointStep: 0,
    startedAt: 0,
    updatedAt: 0,
    // Only the dataset and the config's algorithm are read before the (fake) worker is asked to start.
    request: { dataset: 'demo', config: { algo: 'grpo', steps: 3 } as TrainConfig },
  };

  it('loads the run’s Hub model again, then starts it again from step 0 (no checkpoint)', async () => {
    useStore.setState({ interruptedRun: record });
    await useStore.getState().resumeInterruptedRun();
    expect(worker.calls).toEqual(['loadModel Qwen/Qwen3-0.6B', 'discard run-1', 'startTraining']);
    expect(useStore.getState().interruptedRun).toBeNull();
  });

  it('stops with a notice naming the model when it cannot be loaded again', async () => {
    worker.loadError = new Error('offline');
    useStore.setState({ interruptedRun: record });
    await useStore.getState().resumeInterruptedRun();
    expect(worker.calls).toEqual(['loadModel Qwen/Qwen3-0.6B']);
    expect(useStore.getState().trainNotice).toBe('Qwen/Qwen3-0.6B could not be loaded again: offline. Load it in Watch’s Model panel, then resume.');
    expect(useStore.getState().interruptedRun).not.toBeNull();
  });
});
