/**
 * What becomes of a view's chosen policy when the worker's list changes (src/ui/store/policy-choice.ts): new
 * settings keep "Qwen + adapter" chosen, a model load chooses the model unless a policy on it is chosen, and a
 * policy that went away falls back to Oracle with a notice that names it.
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

  it('tells model policies from the others', () => {
    expect(['qwen', 'qwen+x', 'oracle', 'random', 'qwenish'].map(isModelPolicy)).toEqual([true, true, false, false, false]);
  });
});
