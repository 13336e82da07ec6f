/**
 * Reading an onnx-community export for transformers.js: from a picked folder (its variants known from the listing)
 * and from a Hub repository through the model cache (variants probed in the device's order of preference, external
 * data chunk by chunk), with errors naming the file at fault — bad JSON, a missing dtype, an unsupported
 * architecture refused before any decoder byte is requested.
 */
import { describe, expect, it } from 'vitest';
import { MemoryFileStore } from '../../../src/model/cache.ts';
import { toHfConfigJson, UnsupportedArchitectureError } from '../../../src/model/config.ts';
import type { LocalFile } from '../../../src/model/local-folder.ts';
import { tinyModelConfig } from '../../../src/model/tiny-model.ts';
import type { LlmLoadProgress } from '../../../src/workers/llm-generate.ts';
import { readTjsModel } from '../../../src/workers/tjs/tjs-files.ts';
import { TjsModelFileError } from '../../../src/workers/tjs/tjs-layout.ts';

const enc = (x: unknown) => new TextEncoder().encode(typeof x === 'string' ? x : JSON.stringify(x));
const bytes = (n: number, fill: number) => new Uint8Array(n).fill(fill);

function modelFiles(extra: Record<string, Uint8Array>, config: unknown = toHfConfigJson(tinyModelConfig({ vocabSize: 64 }))): Record<string, Uint8Array> {
  return { 'config.json': enc(config), 'tokenizer.json': enc({ model: {} }), 'tokenizer_config.json': enc({}), ...extra };
}

const picked = (files: Record<string, Uint8Array>, root = 'qwen3-onnx'): LocalFile[] => Object.entries(files).map(([path, data]) => ({ path: `${root}/${path}`, data }));

/** A fake Hub serving `files` of repo o/m at revision main; records every URL asked. */
function fakeHub(files: Record<string, Uint8Array>) {
  const asked: string[] = [];
  const prefix = 'https://hub.test/o/m/resolve/main/';
  const fetch = async (url: string) => {
    asked.push(url.slice(prefix.length));
    const f = files[url.slice(prefix.length)];
    return f ? new Response(f as Uint8Array<ArrayBuffer>, { headers: { 'content-length': String(f.length) } }) : new Response('not found', { status: 404 });
  };
  return { asked, fetch: fetch as unknown as typeof globalThis.fetch };
}

const hub = { kind: 'hub', repo: 'o/m', base: 'https://hub.test' } as const;

describe('readTjsModel from a picked folder', () => {
  it('reads the chosen variant and its external data, and nothing of the others', async () => {
    const files = modelFiles({ 'onnx/model_q4.onnx': bytes(7, 1), 'onnx/model.onnx': bytes(5, 2), 'onnx/model.onnx_data': bytes(9, 3) });
    const m = await readTjsModel({ kind: 'files', files: picked(files) }, 'http://x/', { dtype: 'fp32', device: 'wasm', shaderF16: false });
    expect(m.label).toBe('qwen3-onnx');
    expect(m.variant).toEqual({ dtype: 'fp32', file: 'onnx/model.onnx', externalData: ['onnx/model.onnx_data'] });
    expect([...m.files.keys()].sort()).toEqual(['config.json', 'onnx/model.onnx', 'onnx/model.onnx_data', 'tokenizer.json', 'tokenizer_config.json']);
    expect(m.files.get('onnx/model.onnx_data')).toEqual(bytes(9, 3));
    expect(m.config.vocabSize).toBe(64);
  });

  it('auto on WASM takes q4 over fp32', async () => {
    const files = modelFiles({ 'onnx/model_q4.onnx': bytes(7, 1), 'onnx/model.onnx': bytes(5, 2) });
    const m = await readTjsModel({ kind: 'files', files: picked(files) }, 'http://x/', { dtype: 'auto', device: 'wasm', shaderF16: false });
    expect(m.variant.dtype).toBe('q4');
    expect(m.files.has('onnx/model.onnx')).toBe(false);
  });

  it('names config.json when it is not JSON, and the decoder when the dtype is absent', async () => {
    const bad = { ...modelFiles({ 'onnx/model_q4.onnx': bytes(3, 1) }), 'config.json': enc('{ nope') };
    await expect(readTjsModel({ kind: 'files', files: picked(bad) }, 'http://x/', { dtype: 'auto', device: 'wasm', shaderF16: false })).rejects.toThrow(/config\.json in 'qwen3-onnx' is not valid JSON/);
    const noFp16 = modelFiles({ 'onnx/model_q4.onnx': bytes(3, 1) });
    const e = await readTjsModel({ kind: 'files', files: picked(noFp16) }, 'http://x/', { dtype: 'fp16', device: 'wasm', shaderF16: false }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(TjsModelFileError);
    expect((e as TjsModelFileError).file).toBe('onnx/model_fp16.onnx');
  });
});

describe('readTjsModel from the Hub', () => {
  it('probes the dtypes in order, then the external data chunks, into the cache, with progress', async () => {
    const files = modelFiles({ 'onnx/model.onnx': bytes(5, 2), 'onnx/model.onnx_data': bytes(11, 3), 'onnx/model.onnx_data_1': bytes(4, 4) });
    const { asked, fetch } = fakeHub(files);
    const store = new MemoryFileStore();
    const progress: LlmLoadProgress[] = [];
    const m = await readTjsModel(hub, 'http://x/', { dtype: 'auto', device: 'wasm', shaderF16: false, store, fetch }, (p) => progress.push(p));
    expect(m.variant).toEqual({ dtype: 'fp32', file: 'onnx/model.onnx', externalData: ['onnx/model.onnx_data', 'onnx/model.onnx_data_1'] });
    expect(asked).toEqual([
      'config.json',
      'generation_config.json',
      'tokenizer.json',
      'tokenizer_config.json',
      'onnx/model_q4.onnx',
      'onnx/model_quantized.onnx',
      'onnx/model_int8.onnx',
      'onnx/model_uint8.onnx',
      'onnx/model_bnb4.onnx',
      'onnx/model.onnx',
      'onnx/model.onnx_data',
      'onnx/model.onnx_data_1',
      'onnx/model.onnx_data_2',
    ]);
    expect(progress.some((p) => p.phase === 'download' && p.file === 'onnx/model.onnx_data')).toBe(true);
    const total = Object.values(files).reduce((s, f) => s + f.length, 0);
    expect(progress.at(-1)?.loaded).toBe(total);

    // A second read comes from the cache: only the files that were missing are asked again.
    asked.length = 0;
    await readTjsModel(hub, 'http://x/', { dtype: 'fp32', device: 'wasm', shaderF16: false, store, fetch });
    expect(asked).toEqual(['generation_config.json', 'onnx/model.onnx_data_2']);
  });

  it('names the decoder of a dtype the repository lacks', async () => {
    const { fetch } = fakeHub(modelFiles({ 'onnx/model_q4.onnx': bytes(5, 2) }));
    await expect(readTjsModel(hub, 'http://x/', { dtype: 'q4f16', device: 'webgpu', shaderF16: true, store: new MemoryFileStore(), fetch })).rejects.toThrow(/onnx\/model_q4f16\.onnx in 'o\/m' is missing, so dtype q4f16 cannot load/);
  });

  it('refuses an unsupported architecture before asking for any decoder', async () => {
    const { asked, fetch } = fakeHub(modelFiles({ 'onnx/model_q4.onnx': bytes(5, 2) }, { architectures: ['LlamaForCausalLM'] }));
    await expect(readTjsModel(hub, 'http://x/', { dtype: 'auto', device: 'wasm', shaderF16: false, store: new MemoryFileStore(), fetch })).rejects.toBeInstanceOf(UnsupportedArchitectureError);
    expect(asked.filter((f) => f.startsWith('onnx/'))).toEqual([]);
  });
});
