/**
 * Picking adapter files in the Adapters panel (src/ui/train/adapter-actions.ts): sizes are checked from the File
 * objects before a byte is read or sent to the worker, and a PyTorch pickle gets a hint. The worker client is stood
 * in for: a picked file over its cap must never reach it.
 */
import { describe, expect, it, vi } from 'vitest';

const sent: unknown[] = [];
vi.mock('../../../src/workers/env-client.ts', () => ({ envClient: () => ({ loadAdapterFiles: async (files: unknown) => (sent.push(files), { id: 'x' }) }) }));

/** A picked file whose contents must not be read: reading throws. */
function picked(name: string, size: number): File {
  const refuse = () => Promise.reject(new Error(`${name} was read`));
  return { name, size, webkitRelativePath: '', arrayBuffer: refuse, text: refuse } as unknown as File;
}

const MIB = 1024 * 1024;

describe('pickAdapterFiles: sizes before reading', () => {
  it('refuses an adapter_config.json over 1 MiB, naming the file, its size and the cap', async () => {
    const { loadAdapterFromFiles } = await import('../../../src/ui/train/adapter-actions.ts');
    await expect(loadAdapterFromFiles([picked('adapter_model.safetensors', 1000), picked('adapter_config.json', MIB + 1)], '')).rejects.toThrow(
      `adapter_config.json has at least ${MIB + 1} bytes; at most ${MIB} are read`,
    );
    expect(sent).toEqual([]);
  });

  it('refuses weights over 1 GiB of tensors + 100 MiB of header + 8 bytes, and takes exactly that size', async () => {
    const { pickAdapterFiles } = await import('../../../src/ui/train/adapter-actions.ts');
    const cap = 1024 * MIB + 100 * MIB + 8;
    expect(() => pickAdapterFiles([picked('adapter_model.safetensors', cap + 1), picked('adapter_config.json', 500)])).toThrow(`adapter_model.safetensors has at least ${cap + 1} bytes; at most ${cap} are read`);
    expect(pickAdapterFiles([picked('adapter_model.safetensors', cap), picked('adapter_config.json', MIB)]).weights.size).toBe(cap);
  });

  it('names the PyTorch pickle when it was picked instead of safetensors', async () => {
    const { pickAdapterFiles } = await import('../../../src/ui/train/adapter-actions.ts');
    expect(() => pickAdapterFiles([picked('adapter_model.bin', 10), picked('adapter_config.json', 10)])).toThrow(/adapter_model\.safetensors is missing \(adapter_model\.bin is a PyTorch pickle/);
    expect(() => pickAdapterFiles([picked('adapter_config.json', 10)])).toThrow(/adapter_model\.safetensors is missing\.$/);
  });
});
