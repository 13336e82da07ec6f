/**
 * The model registry: the known checkpoints, Hub id validation (table-driven), source keys, and the files a
 * checkpoint needs, single-file or sharded (config.json always first).
 */
import { describe, expect, it } from 'vitest';
import {
  checkpointFiles,
  DEFAULT_MODEL,
  folderSource,
  hubSource,
  MODEL_REGISTRY,
  ModelIdError,
  registryEntry,
  sourceKey,
  validateRepoId,
} from '../../src/model/registry.ts';

describe('registry', () => {
  it('lists the four known checkpoints, Qwen3-0.6B first and default', () => {
    expect(MODEL_REGISTRY.map((e) => e.repo)).toEqual([
      'Qwen/Qwen3-0.6B',
      'Qwen/Qwen2.5-0.5B-Instruct',
      'hjerpe/sqlenv-qwen3-0.6b-grpo',
      'hjerpe/sqlenv-qwen3-0.6b-grpo-v2',
    ]);
    expect(DEFAULT_MODEL.repo).toBe('Qwen/Qwen3-0.6B');
    expect(registryEntry('qwen/qwen2.5-0.5b-instruct')?.architecture).toBe('qwen2');
    expect(registryEntry('someone/else')).toBeUndefined();
  });

  it.each(['Qwen/Qwen3-0.6B', 'hjerpe/sqlenv-qwen3-0.6b-grpo-v2', 'a_b/c.d', ' o/n '])('accepts %j', (id) => {
    expect(validateRepoId(id)).toBe(id.trim());
  });

  it.each(['', 'noslash', 'a/b/c', '/b', 'a/', '-a/b', 'a/b.', 'a/b..c', 'a b/c', 'a/b?x', '../etc/passwd'])('refuses %j', (id) => {
    expect(() => validateRepoId(id)).toThrow(ModelIdError);
  });

  it('sources and their keys', () => {
    expect(sourceKey(hubSource())).toBe('hub:Qwen/Qwen3-0.6B@main');
    expect(sourceKey(hubSource('x/y', 'v2'))).toBe('hub:x/y@v2');
    expect(sourceKey(folderSource('my-model'))).toBe('folder:my-model');
    expect(() => hubSource('x/y', 'a b')).toThrow(ModelIdError);
  });

  it('files of a single-file and of a sharded checkpoint', () => {
    expect(checkpointFiles(null)).toEqual(['config.json', 'generation_config.json', 'tokenizer.json', 'tokenizer_config.json', 'model.safetensors']);
    const index = { weight_map: { a: 'model-00002-of-00002.safetensors', b: 'model-00001-of-00002.safetensors', c: 'model-00001-of-00002.safetensors' } };
    expect(checkpointFiles(index).slice(4)).toEqual(['model.safetensors.index.json', 'model-00001-of-00002.safetensors', 'model-00002-of-00002.safetensors']);
  });
});
