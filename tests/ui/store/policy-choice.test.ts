/**
 * What becomes of a view's chosen policy when the worker's list changes (src/ui/store/policy-choice.ts): new
 * settings keep "Qwen + adapter" chosen, a model load chooses the model unless a policy on it is chosen, and a
 * policy that went away falls back to Oracle with a notice that names it; a view that remembers (Watch) chooses the
 * model policy that went away again once it is listed.
 */
import { describe, expect, it } from 'vitest';
import type { PolicyInfo } from '../../../src/policies/registry.ts';
import { choosePolicy, isModelPolicy } from '../../../src/ui/store/policy-choice.ts';

const list = (...names: string[]): PolicyInfo[] => names.map((name) => ({ name, label: name === 'oracle' ? 'Oracle' : name, description: '' }));
const BUILT_IN = ['random', 'oracle'];
const WITH_MODEL = [...BUILT_IN, 'qwen', 'qwen+a1'];

describe('choosePolicy', () => {
  it.each([
    // chosen, list, loaded model → policy, notice?
    ['qwen+a1', WITH_MODEL, undefined, 'qwen+a1', false], // Apply settings: the adapter stays
    ['qwen', WITH_MODEL, undefined, 'qwen', false],
    ['random', WITH_MODEL, undefined, 'random', false],
    ['qwen+a1', WITH_MODEL, 'qwen', 'qwen+a1', false], // a model reload keeps the adapter on it
    ['oracle', WITH_MODEL, 'qwen', 'qwen', false], // a model load chooses the model
    ['qwen+gone', WITH_MODEL, 'qwen', 'qwen', false],
    ['qwen', [...WITH_MODEL, 'qwen-tjs'], 'qwen-tjs', 'qwen-tjs', false], // the transformers.js model loaded: chosen
    ['qwen-tjs', [...WITH_MODEL, 'qwen-tjs'], 'qwen', 'qwen', false], // and the engine's, loaded after it
    ['qwen+a1', BUILT_IN, undefined, 'oracle', true], // the model went away: said so
    ['qwen', BUILT_IN, undefined, 'oracle', true],
  ])('%s in [%s], loaded %s → %s (notice: %s)', (chosen, names, loaded, policy, notice) => {
    const choice = choosePolicy(chosen, list(...names), loaded);
    expect(choice.policy).toBe(policy);
    expect(choice.notice !== null).toBe(notice);
  });

  it('names the policy that went away and the one that plays instead', () => {
    expect(choosePolicy('qwen+a1', list(...BUILT_IN)).notice).toBe(
      "The policy 'qwen+a1' you chose is not available now (its model or adapter is not loaded), so Oracle plays instead.",
    );
  });

  it.each([
    // chosen, awaited, list, loaded model → policy, awaited after, notice?
    ['qwen+a1', null, BUILT_IN, undefined, 'oracle', 'qwen+a1', true], // a reload: remembered, said so
    ['qwen', null, BUILT_IN, undefined, 'oracle', 'qwen', true],
    ['oracle', 'qwen+a1', BUILT_IN, undefined, 'oracle', 'qwen+a1', true], // still waiting (a second reload): said again
    ['oracle', 'qwen+a1', WITH_MODEL, 'qwen', 'qwen+a1', null, false], // its model loaded: the adapter, not plain Qwen
    ['oracle', 'qwen+a1', WITH_MODEL, undefined, 'qwen+a1', null, false], // listed by any later list
    ['oracle', 'qwen+gone', WITH_MODEL, 'qwen', 'qwen', null, false], // a model it is not on: the model, forgotten
    ['random', null, BUILT_IN, undefined, 'random', null, false],
  ])('remembering: %s (awaiting %s) in [%s], loaded %s → %s, awaiting %s (notice: %s)', (chosen, awaited, names, loaded, policy, after, notice) => {
    const choice = choosePolicy(chosen, list(...names), loaded, awaited);
    expect(choice.policy).toBe(policy);
    expect(choice.awaited).toBe(after);
    expect(choice.notice !== null).toBe(notice);
  });

  it('a view that does not remember awaits nothing', () => {
    expect(choosePolicy('qwen+a1', list(...BUILT_IN)).awaited).toBeNull();
  });

  it('says the remembered policy comes back with its model', () => {
    expect(choosePolicy('qwen+a1', list(...BUILT_IN), undefined, null).notice).toBe(
      "The policy 'qwen+a1' you chose is not available now (its model or adapter is not loaded), so Oracle plays instead. Load its model again (Model panel) and it is chosen again.",
    );
  });

  it('tells model policies from the others', () => {
    expect(['qwen', 'qwen+x', 'oracle', 'random', 'qwenish'].map(isModelPolicy)).toEqual([true, true, false, false, false]);
  });
});
