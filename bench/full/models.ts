/**
 * The full-size shapes bench:full runs and the cache folder of their random checkpoints. Each shape is the published
 * config of its model (src/model/config.ts: Qwen/Qwen3-0.6B and Qwen/Qwen2.5-0.5B-Instruct as on the Hub, the two
 * real models of the registry, src/model/registry.ts), optionally with fewer layers for quick runs; its weights are
 * seeded random (src/model/tiny-model.ts `randomModelWeights`), written in bf16 as the Hub's checkpoints are, with
 * the real Qwen3 tokenizer files (src/model/files-node.ts `writeTinyModel`).
 *
 * Cache: `<cache>/<shape>[-L<layers>]-seed<seed>/`, written to a temporary sibling and renamed when complete, so a
 * folder that exists is whole; reused by later runs. The default cache, .cache/full-models, is gitignored (.cache/).
 * Writing the Qwen3-0.6B shape takes about 40 s and 2.4 GB of f32 tensors in memory; the folder is 1.2 GB.
 */
import { access, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { createRng } from '../../src/data/rng.ts';
import { QWEN2_5_0_5B_INSTRUCT, QWEN3_0_6B, type ModelConfig } from '../../src/model/config.ts';
import { writeTinyModel } from '../../src/model/files-node.ts';

export const DEFAULT_CACHE = '.cache/full-models';

/** The shapes by their command-line names. */
export const SHAPES = {
  'qwen3-0.6b': { label: 'Qwen3-0.6B', config: QWEN3_0_6B },
  'qwen2.5-0.5b': { label: 'Qwen2.5-0.5B-Instruct', config: QWEN2_5_0_5B_INSTRUCT },
} as const satisfies Record<string, { label: string; config: ModelConfig }>;

export type ShapeName = keyof typeof SHAPES;

export const SHAPE_NAMES = Object.keys(SHAPES) as ShapeName[];

export function isShapeName(name: string): name is ShapeName {
  return name in SHAPES;
}

/** The config of a shape, with `layers` layers when given (else the model's own count). */
export function shapeConfig(shape: ShapeName, layers: number | null): ModelConfig {
  const config = SHAPES[shape].config;
  return layers === null ? config : { ...config, numLayers: layers };
}

/** The cache folder of a shape. */
export function modelFolder(cache: string, shape: ShapeName, layers: number | null, seed: number): string {
  return join(cache, `${shape}${layers === null ? '' : `-L${layers}`}-seed${seed}`);
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

/**
 * The cached folder of a shape, written first when missing. Returns the folder and the seconds spent writing it
 * (null when it was reused).
 */
export async function ensureModel(cache: string, shape: ShapeName, layers: number | null, seed: number): Promise<{ dir: string; writeSeconds: number | null }> {
  const dir = modelFolder(cache, shape, layers, seed);
  if (await exists(join(dir, 'model.safetensors'))) return { dir, writeSeconds: null };
  const partial = `${dir}.partial-${process.pid}`;
  const started = performance.now();
  try {
    await writeTinyModel(partial, shapeConfig(shape, layers), createRng(seed), { dtype: 'BF16' });
    await rm(dir, { recursive: true, force: true });
    await rename(partial, dir);
  } catch (e) {
    await rm(partial, { recursive: true, force: true });
    throw e;
  }
  return { dir, writeSeconds: (performance.now() - started) / 1000 };
}
