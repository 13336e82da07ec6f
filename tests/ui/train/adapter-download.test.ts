/**
 * The Adapters panel's download (src/ui/train/adapter-actions.ts) saves every file the worker wrote for the adapter,
 * the model card included, under PEFT's names. The worker client and the browser download are stood in for.
 */
import { describe, expect, it, vi } from 'vitest';
import { createRng } from '../../../src/data/rng.ts';
import { writePeftAdapter } from '../../../src/model/adapter-file.ts';
import { createLoraAdapter } from '../../../src/model/lora.ts';
import { tinyModelConfig } from '../../../src/model/tiny-model.ts';
import type { AdapterInfo } from '../../../src/workers/train-protocol.ts';

const MODEL = tinyModelConfig({ vocabSize: 300 });

function baseModelOf(configJson: string): unknown {
  return (JSON.parse(configJson) as { base_model_name_or_path?: unknown }).base_model_name_or_path;
}
const FILES = writePeftAdapter(createLoraAdapter(MODEL, { rank: 2, alpha: 4, targetModules: ['q_proj'], dropout: 0, useRslora: false }, createRng(1), () => 0.25), { modelId: 'Qwen/Qwen3-0.6B', config: MODEL });
const saved = new Map<string, Blob>();

vi.mock('../../../src/workers/env-client.ts', () => ({ envClient: () => ({ adapterFiles: async () => FILES }) }));
vi.mock('../../../src/ui/evaluate/download.ts', () => ({ downloadBlob: (name: string, blob: Blob) => saved.set(name, blob) }));

describe('downloadAdapter', () => {
  it('saves the weights, the config and the model card', async () => {
    const { downloadAdapter } = await import('../../../src/ui/train/adapter-actions.ts');
    await downloadAdapter({ id: 'a' } as AdapterInfo);
    expect([...saved.keys()].sort()).toEqual(['README.md', 'adapter_config.json', 'adapter_model.safetensors']);
    const card = await saved.get('README.md')!.text();
    expect(card).toMatch(/^---\n(?:.*\n)*?library_name: peft\n/);
    expect(card).toContain('\nbase_model: Qwen/Qwen3-0.6B\n');
    expect(baseModelOf(await saved.get('adapter_config.json')!.text())).toBe('Qwen/Qwen3-0.6B');
  });
});
