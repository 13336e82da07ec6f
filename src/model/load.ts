/**
 * From a checkpoint's files (already in memory, however they were fetched) to a checked model: parse config.json
 * (+ generation_config.json), decode the safetensors shard(s), and check every tensor against the config. Pure: the
 * Node folder reader (`files-node.ts`) and the browser's fetch/cache layer both end here, so a tiny model written by
 * `npm run model:tiny` goes through exactly the path a Hub checkpoint does.
 */
import { parseModelConfig, type ModelConfig } from './config.ts';
import { readSafetensors, type DecodedTensor } from './safetensors.ts';
import { checkWeights } from './weights.ts';

export interface CheckpointFiles {
  configJson: unknown;
  generationConfigJson?: unknown;
  /** One entry per safetensors file (one for an unsharded model). */
  safetensors: Uint8Array[];
}

export interface LoadedModel {
  config: ModelConfig;
  /** Every tensor decoded to f32, PyTorch shapes. */
  tensors: Map<string, DecodedTensor>;
  /** Tensors present but not used by the architecture (logged, not an error). */
  ignored: string[];
}

export class CheckpointError extends Error {
  override name = 'CheckpointError';
}

/** The shard file names of a sharded checkpoint, from `model.safetensors.index.json`. */
export function shardFiles(indexJson: unknown): string[] {
  const map = (indexJson as { weight_map?: unknown } | null)?.weight_map;
  if (typeof map !== 'object' || map === null) throw new CheckpointError('model.safetensors.index.json has no "weight_map" object');
  return [...new Set(Object.values(map as Record<string, unknown>).map(String))].sort();
}

export function loadCheckpoint(files: CheckpointFiles): LoadedModel {
  const config = parseModelConfig(files.configJson, files.generationConfigJson);
  if (files.safetensors.length === 0) throw new CheckpointError('No safetensors file given: expected model.safetensors or its shards');
  const tensors = new Map<string, DecodedTensor>();
  for (const bytes of files.safetensors) {
    for (const [name, t] of readSafetensors(bytes).tensors) {
      if (tensors.has(name)) throw new CheckpointError(`Tensor "${name}" appears in two safetensors shards`);
      tensors.set(name, t);
    }
  }
  const { ignored } = checkWeights(config, tensors);
  return { config, tensors, ignored };
}
