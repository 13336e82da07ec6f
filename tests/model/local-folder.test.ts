/**
 * A local model folder picked in the page (`<input webkitdirectory>` files with their relative paths), read in
 * memory: the model root found under the pick, files read in the Hub's order, and one typed error naming the file
 * for each way a folder can be wrong — config, tokenizer or weights missing, a shard the index names missing, bad
 * JSON, a corrupt safetensors header — and an unsupported architecture refused before any weight byte is read.
 */
import { describe, expect, it } from 'vitest';
import { createRng } from '../../src/data/rng.ts';
import { toHfConfigJson, UnsupportedArchitectureError } from '../../src/model/config.ts';
import { loadCheckpoint } from '../../src/model/load.ts';
import { CorruptLocalFileError, LocalModelFileError, modelRoot, readLocalModel, type LocalFile } from '../../src/model/local-folder.ts';
import { CorruptHeaderError, writeSafetensors } from '../../src/model/safetensors.ts';
import { randomModelWeights, tinyModelConfig } from '../../src/model/tiny-model.ts';

const enc = (x: unknown) => new TextEncoder().encode(JSON.stringify(x));

function weightsFile(): Uint8Array {
  const config = tinyModelConfig({ vocabSize: 64 });
  const weights = randomModelWeights(config, createRng(3));
  return writeSafetensors(new Map([...weights].map(([n, t]) => [n, { shape: t.shape, data: t.data }])));
}

/** A tiny model's files under `prefix` (as webkitRelativePath gives them), as Blobs like a real pick. */
function folder(prefix = 'tiny/', change: Record<string, Uint8Array | null> = {}): LocalFile[] {
  const files: Record<string, Uint8Array | null> = {
    'config.json': enc(toHfConfigJson(tinyModelConfig({ vocabSize: 64 }))),
    'generation_config.json': enc({ eos_token_id: [1] }),
    'tokenizer.json': enc({ model: {} }),
    'tokenizer_config.json': enc({}),
    'model.safetensors': weightsFile(),
    'README.md': enc('not read'),
    ...change,
  };
  return Object.entries(files).flatMap(([name, bytes]) => (bytes === null ? [] : [{ path: prefix + name, data: new Blob([bytes.slice().buffer]) }]));
}

async function failure(files: LocalFile[]): Promise<Error> {
  const e = await readLocalModel(files).catch((err: unknown) => err);
  expect(e).toBeInstanceOf(Error);
  return e as Error;
}

describe('readLocalModel', () => {
  it('reads a picked folder into checkpoint files the loader accepts, with progress up to the total', async () => {
    const seen: Array<[string, number, number]> = [];
    const m = await readLocalModel(folder(), (file, loaded, total) => seen.push([file, loaded, total]));
    expect(m.label).toBe('tiny');
    expect(m.config.architecture).toBe('qwen3');
    expect(m.tokenizerJson).toEqual({ model: {} });
    const loaded = loadCheckpoint(m.checkpoint);
    expect(loaded.tensors.size).toBeGreaterThan(5);
    expect(seen.map(([f]) => f)).toEqual(['config.json', 'generation_config.json', 'tokenizer.json', 'tokenizer_config.json', 'model.safetensors']);
    const last = seen.at(-1)!;
    expect(last[1]).toBe(last[2]);
    for (let i = 1; i < seen.length; i++) expect(seen[i][1]).toBeGreaterThan(seen[i - 1][1]);
  });

  it('finds the model root when the parent folder was picked, and ignores other files', async () => {
    const files = [...folder('models/qwen-tiny/'), { path: 'models/notes/config.txt', data: new Blob(['x']) }];
    expect(modelRoot(files).root).toBe('models/qwen-tiny/');
    expect((await readLocalModel(files)).label).toBe('qwen-tiny');
  });

  it('reads an optional generation_config.json only when present', async () => {
    const m = await readLocalModel(folder('tiny/', { 'generation_config.json': null }));
    expect(m.checkpoint.generationConfigJson).toBeUndefined();
  });

  it.each([
    ['config.json', /config\.json in the folder 'tiny' is missing.*pick the folder that holds config\.json, tokenizer\.json, tokenizer_config\.json/],
    ['tokenizer.json', /tokenizer\.json in the folder 'tiny' is missing/],
    ['tokenizer_config.json', /tokenizer_config\.json in the folder 'tiny' is missing/],
    ['model.safetensors', /model\.safetensors in the folder 'tiny' is missing/],
  ])('a missing %s → LocalModelFileError naming it', async (name, message) => {
    const e = await failure(folder('tiny/', { [name]: null }));
    expect(e).toBeInstanceOf(LocalModelFileError);
    expect(e.message).toMatch(message);
  });

  it('a shard the index names but the folder lacks → LocalModelFileError naming the shard', async () => {
    const index = { weight_map: { 'model.embed_tokens.weight': 'model-00001-of-00002.safetensors', 'lm_head.weight': 'model-00002-of-00002.safetensors' } };
    const e = await failure(folder('tiny/', { 'model.safetensors': null, 'model.safetensors.index.json': enc(index), 'model-00001-of-00002.safetensors': weightsFile() }));
    expect(e).toBeInstanceOf(LocalModelFileError);
    expect(e.message).toMatch(/model-00002-of-00002\.safetensors .* named by model\.safetensors\.index\.json but missing/);
  });

  it('bad JSON → LocalModelFileError naming the file', async () => {
    const e = await failure(folder('tiny/', { 'tokenizer_config.json': new TextEncoder().encode('{ not json') }));
    expect(e).toBeInstanceOf(LocalModelFileError);
    expect(e.message).toMatch(/tokenizer_config\.json in the folder 'tiny' is not valid JSON/);
  });

  it.each([
    ['a header length past the end', (() => {
      const b = new Uint8Array(64);
      new DataView(b.buffer).setUint32(0, 1_000_000, true);
      return b;
    })()],
    ['a header that is not JSON', (() => {
      const b = new Uint8Array(8 + 16);
      new DataView(b.buffer).setUint32(0, 16, true);
      b.set(new TextEncoder().encode('this is no json'), 8);
      return b;
    })()],
    ['a file shorter than 8 bytes', new Uint8Array([1, 2, 3])],
  ])('%s → CorruptLocalFileError (a CorruptHeaderError) naming the file', async (_what, bytes) => {
    const e = await failure(folder('tiny/', { 'model.safetensors': bytes }));
    expect(e).toBeInstanceOf(CorruptLocalFileError);
    expect(e).toBeInstanceOf(CorruptHeaderError);
    expect(e.message).toMatch(/model\.safetensors in the folder 'tiny' is not a valid safetensors file/);
  });

  it('an unsupported architecture is refused before any weight byte is read', async () => {
    const files = folder('tiny/', { 'config.json': enc({ architectures: ['LlamaForCausalLM'] }) });
    const weights = files.find((f) => f.path.endsWith('.safetensors'))!;
    let read = false;
    weights.data = { size: 10, arrayBuffer: () => ((read = true), Promise.reject(new Error('read'))) } as unknown as Blob;
    expect(await failure(files)).toBeInstanceOf(UnsupportedArchitectureError);
    expect(read).toBe(false);
  });

  it('a file that can no longer be read → LocalModelFileError saying so', async () => {
    const files = folder();
    files.find((f) => f.path.endsWith('.safetensors'))!.data = { size: 10, arrayBuffer: () => Promise.reject(new Error('NotReadableError')) } as unknown as Blob;
    const e = await failure(files);
    expect(e).toBeInstanceOf(LocalModelFileError);
    expect(e.message).toMatch(/model\.safetensors .* could not be read \(NotReadableError\)/);
  });

  it('an aborted signal stops the read', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(readLocalModel(folder(), undefined, controller.signal)).rejects.toThrow();
  });

  it('no files at all → LocalModelFileError asking for the model folder', async () => {
    const e = await failure([]);
    expect(e).toBeInstanceOf(LocalModelFileError);
    expect(e.message).toMatch(/config\.json .* is missing \(0 files picked\)/);
  });
});
