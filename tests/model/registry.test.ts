/**
 * The model registry: the known checkpoints, Hub id and revision validation (table-driven), and the weight files
 * of a checkpoint, single-file or sharded.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_MODEL, MODEL_REGISTRY, ModelIdError, registryEntry, validateRepoId, validateRevision, weightFiles } from '../../src/model/registry.ts';

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

  it.each(['main', 'v2', 'a1b2c3d4e5f6'])('accepts the revision %j', (revision) => {
    expect(validateRevision(revision)).toBe(revision);
  });

  it.each(['', 'a b', 'x?y', 'x#y', 'a\\b', '../main', 'x'.repeat(201)])('refuses the revision %j', (revision) => {
    expect(() => validateRevision(revision)).toThrow(ModelIdError);
  });

  it('weight files of a single-file and of a sharded checkpoint', () => {
    expect(weightFiles(null)).toEqual(['model.safetensors']);
    const index = { weight_map: { a: 'model-00002-of-00002.safetensors', b: 'model-00001-of-00002.safetensors', c: 'model-00001-of-00002.safetensors' } };
    expect(weightFiles(index)).toEqual(['model-00001-of-00002.safetensors', 'model-00002-of-00002.safetensors']);
  });
});
