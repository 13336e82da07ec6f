/**
 * Evaluate's side of model runs (src/ui/store/evaluate-slice.ts, issue 24 item 5): an adapter's Evaluate opens the
 * form on a small run (never "All questions"), the page's measure of a model's speed keeps the latest turns of the
 * model it names and drops another model's, and a model's key changes with what changes its speed.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { GenerationRecord } from '../../../src/eval/transcript.ts';

vi.mock('../../../src/workers/env-client.ts', () => ({ callback: <T>(f: T) => f, envClient: () => ({}) }));

const { useStore } = await import('../../../src/ui/store/store.ts');
const { DEFAULT_EVALUATE_FORM, MAX_MODEL_TURNS, MODEL_RUN_EPISODES, modelKey } = await import('../../../src/ui/store/evaluate-slice.ts');

const turn = (tokensPerSecond: number): GenerationRecord => ({ newTokens: 4, seconds: 1, tokensPerSecond, cutByLimit: false });

beforeEach(() => useStore.setState({ evalForm: DEFAULT_EVALUATE_FORM, modelTurns: null, evalPolicyNotice: 'old notice' }));

describe('chooseModelEvaluation', () => {
  it('opens the model policy on a small run instead of every question of the split', () => {
    useStore.getState().setEvalForm({ allQuestions: true, episodes: 20, split: 'heldout', seed: 7 });
    useStore.getState().chooseModelEvaluation('qwen+sft-1');
    expect(MODEL_RUN_EPISODES).toBeLessThan(20);
    expect(useStore.getState().evalForm).toEqual({ policy: 'qwen+sft-1', allQuestions: false, episodes: MODEL_RUN_EPISODES, split: 'heldout', seed: 7 });
    expect(useStore.getState().evalPolicyNotice).toBeNull();
  });

  it('keeps a run already smaller', () => {
    useStore.getState().setEvalForm({ allQuestions: false, episodes: 1 });
    useStore.getState().chooseModelEvaluation('qwen');
    expect(useStore.getState().evalForm.episodes).toBe(1);
  });
});

describe('noteModelTurns', () => {
  it('appends turns of the same model, keeping the latest MAX_MODEL_TURNS', () => {
    const { noteModelTurns } = useStore.getState();
    noteModelTurns('a', [turn(1), turn(2)]);
    noteModelTurns('a', []);
    noteModelTurns('a', Array.from({ length: MAX_MODEL_TURNS }, (_, i) => turn(100 + i)));
    const kept = useStore.getState().modelTurns;
    expect(kept?.modelKey).toBe('a');
    expect(kept?.records.map((r) => r.tokensPerSecond)).toEqual(Array.from({ length: MAX_MODEL_TURNS }, (_, i) => 100 + i));
  });

  it("drops another model's turns", () => {
    useStore.getState().noteModelTurns('a', [turn(1)]);
    useStore.getState().noteModelTurns('b', [turn(9)]);
    expect(useStore.getState().modelTurns).toEqual({ modelKey: 'b', records: [turn(9)] });
  });
});

describe('modelKey', () => {
  const info = { label: 'tiny', weights: 'q8', adapter: 'google/swiftshader', layers: 2, hidden: 32 };
  it.each([{ label: 'Qwen3-0.6B' }, { weights: 'f16' }, { adapter: 'nvidia/ampere' }, { layers: 3 }, { hidden: 64 }])('changes with %j', (patch) => {
    expect(modelKey({ ...info, ...patch })).not.toBe(modelKey(info));
  });
  it('is the same for the same model', () => expect(modelKey({ ...info })).toBe(modelKey(info)));
});
