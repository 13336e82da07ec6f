/**
 * The Model panel's settings: defaults (thinking off, zero-shot, Qwen3's sampling, 256 tokens, q4), the thinking
 * defaults, and one LlmSettingsError naming the field for each value out of range.
 */
import { describe, expect, it } from 'vitest';
import { describeLlmSettings, LlmSettingsError, resolveLlmSettings, type LlmPolicySettings } from '../../src/workers/llm-settings.ts';

describe('resolveLlmSettings', () => {
  it('fills the defaults: thinking off, zero-shot, temperature 0.7, top-p 0.8, 256 tokens, q4 weights', () => {
    expect(resolveLlmSettings()).toEqual({ thinking: false, shots: 0, temperature: 0.7, topP: 0.8, maxNewTokens: 256, weights: 'q8', shotDataset: 'demo' });
  });

  it("uses Qwen3's thinking defaults when thinking is on, unless a value is given", () => {
    expect(resolveLlmSettings({ thinking: true })).toMatchObject({ temperature: 0.6, topP: 0.95, maxNewTokens: 1024 });
    expect(resolveLlmSettings({ thinking: true, temperature: 0, maxNewTokens: 64 })).toMatchObject({ temperature: 0, topP: 0.95, maxNewTokens: 64 });
  });

  it('keeps valid values as given', () => {
    const s: LlmPolicySettings = { thinking: false, shots: 3, temperature: 1.2, topP: 1, maxNewTokens: 4096, weights: 'f16', shotDataset: 'spider' };
    expect(resolveLlmSettings(s)).toEqual(s);
  });

  it.each<[keyof LlmPolicySettings, LlmPolicySettings]>([
    ['maxNewTokens', { maxNewTokens: 0 }],
    ['maxNewTokens', { maxNewTokens: 4097 }],
    ['maxNewTokens', { maxNewTokens: 2.5 }],
    ['temperature', { temperature: -0.1 }],
    ['temperature', { temperature: Number.NaN }],
    ['temperature', { temperature: 2.5 }],
    ['topP', { topP: 0 }],
    ['topP', { topP: 1.01 }],
    ['shots', { shots: 2 as 1 }],
    ['weights', { weights: 'q3' as 'q4' }],
    ['shotDataset', { shotDataset: ' ' }],
    ['thinking', { thinking: 'yes' as unknown as boolean }],
  ])('refuses a bad %s (%j) with LlmSettingsError naming it', (field, settings) => {
    const e = (() => {
      try {
        resolveLlmSettings(settings);
      } catch (err) {
        return err;
      }
      return null;
    })();
    expect(e).toBeInstanceOf(LlmSettingsError);
    expect((e as LlmSettingsError).field).toBe(field);
    expect((e as Error).message).toContain(`'${field}'`);
  });

  it('describes the settings in one line for the policy list', () => {
    expect(describeLlmSettings(resolveLlmSettings({ shots: 1, temperature: 0 }))).toBe('1-shot, thinking off, greedy, at most 256 new tokens a turn, q8 weights');
  });
});
