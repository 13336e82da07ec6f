/**
 * Watch plays what it shows (src/ui/store/watch-slice.ts, issue 24 items 2 and 6): choosing a policy restarts the
 * episode on screen with it on the same question and seed, also while that episode is still being reset; a chosen
 * policy that is gone (a reload took its model) never reaches the worker — Oracle plays, one notice says so — and
 * it is chosen again, with the episode restarted, once its model is loaded again. The worker client is a fake that
 * records which policy every reset and step ran with; the episode seed is drawn anew each run and printed.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ResetOptions } from '../../../src/env/types.ts';
import type { PolicyInfo } from '../../../src/policies/registry.ts';
import { testSeed } from '../../fixtures/seed.ts';

interface ResetCall {
  dataset: string;
  options: ResetOptions;
  policy: string | undefined;
}

/** What the fake worker was asked, and what it lists. */
const worker = {
  listed: ['random', 'oracle'],
  resets: [] as ResetCall[],
  /** The policy each policy step ran with (the one the session was last reset with). */
  steps: [] as string[],
  /** When set, resets wait for `release()` (to choose a policy while one is in flight). */
  hold: null as Promise<void> | null,
};
let release: () => void = () => undefined;

const infos = (): PolicyInfo[] => worker.listed.map((name) => ({ name, label: name === 'oracle' ? 'Oracle' : name, description: `plays ${name}` }));

vi.mock('../../../src/workers/env-client.ts', () => ({
  callback: <T>(f: T) => f,
  envClient: () => ({
    policies: async () => infos(),
    reset: async (_session: string, dataset: string, options: ResetOptions, policy?: string) => {
      worker.resets.push({ dataset, options, policy });
      if (worker.hold) await worker.hold;
      if (policy !== undefined && !worker.listed.includes(policy)) throw new RangeError(`Unknown policy '${policy}'.`);
      // The question a drawn reset lands on depends on the seed only, as the environment's draw does.
      const questionId = options.questionId ?? `q${options.seed ?? 0}`;
      return { observation: { stepsLeft: 10 }, info: { questionId, seed: options.seed ?? 0 } };
    },
    question: async (_dataset: string, id: string) => ({ id, question: `question ${id}` }),
    policyStep: async () => {
      worker.steps.push(worker.resets.at(-1)?.policy ?? 'none');
      return { result: { done: false, observation: { stepsLeft: 9 }, info: { truncated: false } }, step: { action: 'DESCRIBE t' } };
    },
  }),
}));

// The store persists to window.localStorage, which Node lacks: an in-memory one, so zustand does not warn.
const saved = new Map<string, string>();
vi.stubGlobal('window', { localStorage: { getItem: (k: string) => saved.get(k) ?? null, setItem: (k: string, v: string) => saved.set(k, v), removeItem: (k: string) => saved.delete(k) } });

const { useStore } = await import('../../../src/ui/store/store.ts');
const { DEFAULT_WATCH_OPTIONS, persistedWatch } = await import('../../../src/ui/store/watch-slice.ts');

const SEED = 1 + (testSeed('tests/ui/store/watch-slice.test.ts') % 1000);

/** Waits until the store says `done`, letting the fake worker's promises settle. */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !done(); i++) await new Promise((r) => setTimeout(r, 0));
  expect(done()).toBe(true);
}

const ready = () => useStore.getState().watchStatus === 'paused';

beforeEach(async () => {
  worker.listed = ['random', 'oracle'];
  worker.hold = null;
  // Settle on a fresh list, then on a paused Oracle episode, before anything is recorded.
  useStore.setState({ watchOptions: { ...DEFAULT_WATCH_OPTIONS, seed: SEED }, watchAwaitedPolicy: null, watchPolicyNotice: null, watchEpisode: null, watchStatus: 'idle', watchError: null });
  useStore.getState().applyPolicyList(infos());
  worker.resets = [];
  worker.steps = [];
});

afterEach(() => release()); // never leave the worker queue behind a held reset

describe('choosing a policy in Watch', () => {
  it('restarts the episode on screen with the chosen policy, on the same question and seed', async () => {
    await useStore.getState().startWatchEpisode('demo');
    const before = useStore.getState().watchEpisode;
    expect(before?.policy).toBe('oracle');

    useStore.getState().setWatchOptions({ policy: 'random' });
    await until(() => ready() && useStore.getState().watchEpisode?.policy === 'random');
    expect(worker.resets.at(-1)).toEqual({ dataset: 'demo', options: { questionId: before?.question.id, seed: SEED }, policy: 'random' });
    expect(useStore.getState().watchEpisode?.question.id).toBe(before?.question.id);
    expect(useStore.getState().watchEpisode?.seed).toBe(SEED);

    await useStore.getState().watchStep();
    expect(worker.steps).toEqual(['random']);
    expect(useStore.getState().watchEpisode?.steps).toHaveLength(1);
  });

  it('leaves the episode alone when the choice names the policy already playing', async () => {
    await useStore.getState().startWatchEpisode('demo');
    const resets = worker.resets.length;
    useStore.getState().setWatchOptions({ policy: 'oracle', delayMs: 0 });
    await until(ready);
    expect(worker.resets).toHaveLength(resets);
  });

  it('redoes a reset still in flight with the old policy, and the episode that lands plays the new one', async () => {
    worker.hold = new Promise((r) => (release = r));
    const first = useStore.getState().startWatchEpisode('demo');
    await until(() => worker.resets.length === 1);
    expect(worker.resets[0]?.policy).toBe('oracle');

    // Resets run one after another: the redo is queued behind the first, whose episode is then dropped.
    useStore.getState().setWatchOptions({ policy: 'random' });
    release();
    await first;
    await until(() => ready() && useStore.getState().watchEpisode?.policy === 'random');
    // The redo aims where the first reset aimed: the question the seed draws.
    expect(worker.resets[1]).toEqual({ dataset: 'demo', options: worker.resets[0]?.options, policy: 'random' });
    expect(useStore.getState().watchEpisode?.question.id).toBe(`q${SEED}`);
  });
});

describe('after a reload with a model policy chosen', () => {
  const reloadWith = (policy: string) => useStore.setState({ watchOptions: { ...DEFAULT_WATCH_OPTIONS, seed: SEED, policy }, policyInfos: null });

  it('plays Oracle without asking the worker for the gone policy, and says so once', async () => {
    reloadWith('qwen+a1');
    await useStore.getState().startWatchEpisode('demo');
    const s = useStore.getState();
    expect(worker.resets.map((r) => r.policy)).toEqual(['oracle']);
    expect(s.watchError).toBeNull();
    expect(s.watchOptions.policy).toBe('oracle');
    expect(s.watchEpisode?.policy).toBe('oracle');
    expect(s.watchAwaitedPolicy).toBe('qwen+a1');
    expect(s.watchPolicyNotice).toContain("'qwen+a1'");
    expect(s.watchPolicyNotice).toContain('Oracle plays instead');
  });

  it('chooses the adapter again when its model is loaded, and restarts the episode with it', async () => {
    reloadWith('qwen+a1');
    await useStore.getState().startWatchEpisode('demo');
    const question = useStore.getState().watchEpisode?.question.id;

    worker.listed = ['random', 'oracle', 'qwen', 'qwen+a1'];
    useStore.getState().applyPolicyList(infos(), 'qwen');
    expect(useStore.getState().watchOptions.policy).toBe('qwen+a1');
    expect(useStore.getState().watchAwaitedPolicy).toBeNull();
    expect(useStore.getState().watchPolicyNotice).toBeNull();
    await until(() => ready() && useStore.getState().watchEpisode?.policy === 'qwen+a1');
    expect(worker.resets.at(-1)).toEqual({ dataset: 'demo', options: { questionId: question, seed: SEED }, policy: 'qwen+a1' });
  });

  it('keeps waiting for the adapter across a second reload (Oracle persisted, the adapter awaited)', async () => {
    reloadWith('qwen+a1');
    await useStore.getState().startWatchEpisode('demo');
    const kept = persistedWatch(useStore.getState());
    expect(kept.watchAwaitedPolicy).toBe('qwen+a1');

    useStore.setState({ ...kept, watchPolicyNotice: null, policyInfos: null, watchEpisode: null, watchStatus: 'idle' });
    await useStore.getState().startWatchEpisode('demo');
    expect(useStore.getState().watchPolicyNotice).toContain("'qwen+a1'");
    worker.listed = ['random', 'oracle', 'qwen', 'qwen+a1'];
    useStore.getState().applyPolicyList(infos(), 'qwen');
    expect(useStore.getState().watchOptions.policy).toBe('qwen+a1');
  });

  it('forgets the adapter once the person chooses a policy', async () => {
    reloadWith('qwen+a1');
    await useStore.getState().startWatchEpisode('demo');
    useStore.getState().setWatchOptions({ policy: 'random' });
    expect(useStore.getState().watchAwaitedPolicy).toBeNull();
    expect(useStore.getState().watchPolicyNotice).toBeNull();
    await until(() => ready() && useStore.getState().watchEpisode?.policy === 'random');

    worker.listed = ['random', 'oracle', 'qwen', 'qwen+a1'];
    useStore.getState().applyPolicyList(infos(), 'qwen');
    expect(useStore.getState().watchOptions.policy).toBe('qwen');
  });
});
