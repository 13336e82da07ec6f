/**
 * The Adapters panel's download (src/ui/train/adapter-actions.ts) saves every file the worker wrote for the adapter,
 * the model card included, under PEFT's names, as ONE download: a zip holding the adapter's folder. The worker client
 * and the browser download are stood in for; the zip is read back with fflate's unzip.
 */
import { strFromU8, unzipSync } from 'fflate';
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
  it('saves the weights, the config and the model card in one zip of the adapter’s folder', async () => {
    const { downloadAdapter } = await import('../../../src/ui/train/adapter-actions.ts');
    await downloadAdapter({ id: 'a', name: 'grpo 2026-11-27 13:55' } as AdapterInfo);
    expect([...saved.keys()]).toEqual(['grpo-2026-11-27-13-55.zip']);
    const files = unzipSync(new Uint8Array(await saved.get('grpo-2026-11-27-13-55.zip')!.arrayBuffer()));
    expect(Object.keys(files).sort()).toEqual(['grpo-2026-11-27-13-55/README.md', 'grpo-2026-11-27-13-55/adapter_config.json', 'grpo-2026-11-27-13-55/adapter_model.safetensors']);
    const card = strFromU8(files['grpo-2026-11-27-13-55/README.md']);
    expect(card).toMatch(/^---\n(?:.*\n)*?library_name: peft\n/);
    expect(card).toContain('\nbase_model: Qwen/Qwen3-0.6B\n');
    expect(baseModelOf(strFromU8(files['grpo-2026-11-27-13-55/adapter_config.json']))).toBe('Qwen/Qwen3-0.6B');
    expect(files['grpo-2026-11-27-13-55/adapter_model.safetensors']).toEqual(FILES['adapter_model.safetensors']);
  });
});

describe('adapterFolderName', () => {
  it.each([
    ['e2e grpo', 'e2e-grpo'],
    ['sft/../../etc', 'sft-etc'],
    ['..hidden', 'hidden'],
    ['ünïcode name!', 'n-code-name'],
    ['qwen3.0 v2', 'qwen3-0-v2'],
    ['   ', 'adapter'],
    ['a'.repeat(300), 'a'.repeat(100)],
  ])('%s → %s', async (name, folder) => {
    const { adapterFolderName } = await import('../../../src/ui/train/adapter-actions.ts');
    expect(adapterFolderName(name)).toBe(folder);
  });
});
