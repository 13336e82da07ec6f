/**
 * The model settings shown before a model run (src/ui/components/RunEstimate.tsx's `runSettings`): the settings the
 * loaded model plays with, the LoRA adapter named by the policy (`qwen+<id>`), temperature 0 said as greedy.
 */
import { describe, expect, it, vi } from 'vitest';
import type { LoadedModelInfo } from '../../../src/workers/env-protocol.ts';

vi.mock('../../../src/workers/env-client.ts', () => ({ callback: <T>(f: T) => f, envClient: () => ({}) }));
const { runSettings } = await import('../../../src/ui/components/RunEstimate.tsx');

const INFO: LoadedModelInfo = {
  policy: 'qwen',
  label: 'Qwen3-0.6B',
  architecture: 'qwen3',
  layers: 28,
  hidden: 1024,
  vocab: 151936,
  contextTokens: 4096,
  adapter: 'nvidia/ampere +f16',
  weights: 'q8',
  maxNewTokens: 128,
  settings: { thinking: true, maxNewTokens: 128, temperature: 0.6, topP: 0.95, shots: 3, shotDataset: 'demo', weights: 'q8' },
  shotsBuilt: 2,
};

describe('runSettings', () => {
  it('lists what the run plays with, the adapter taken from the policy', () => {
    expect(Object.fromEntries(runSettings(INFO, 'Qwen + sft-7', 'qwen+sft-7'))).toEqual({
      Policy: 'Qwen + sft-7',
      Model: 'Qwen3-0.6B (28 layers, hidden 1024)',
      'LoRA adapter': 'sft-7',
      'Decode weights': 'q8',
      'Tokens per turn': 'at most 128',
      Temperature: '0.6',
      'Top-p': '0.95',
      Thinking: 'on',
      'Few-shot examples': '2',
      'GPU adapter': 'nvidia/ampere +f16',
    });
  });

  it('names the base model when no adapter is on, and temperature 0 as greedy', () => {
    const greedy = { ...INFO, settings: { ...INFO.settings, temperature: 0, thinking: false } };
    const shown = Object.fromEntries(runSettings(greedy, 'Qwen (Qwen3-0.6B)', 'qwen'));
    expect(shown['LoRA adapter']).toBe('none (base model)');
    expect(shown.Temperature).toBe('0 (greedy)');
    expect(shown.Thinking).toBe('off');
  });
});
