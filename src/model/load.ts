/**
 * From a checkpoint's files (already in memory, however they were fetched) to a checked model: parse config.json
 * (+ generation_config.json), decode the safetensors shard(s), and check every tensor against the config. Pure: the
 * Node folder reader (`files-node.ts`) and the browser's fetch/cache layer both end here, so a tiny model written by
 * `npm run model:tiny` goes through exactly the path a Hub checkpoint does.
 *
 * Every file is untrusted, and the order is what keeps a bad one cheap: the config is range-checked and its memory
 * plan held against the budget (model-budget.ts) before anything is sized from it; every shard's header is checked
 * against its bytes, and the header shapes against the config, before a tensor is decoded; decoding refuses NaN and
 * ±Infinity by tensor and file. Errors are typed and name the file (and the field or tensor) at fault.
 */
import { parseModelConfig, type ModelConfig } from './config.ts';
import { checkModelFits } from './model-budget.ts';
import { checkModelFilePath } from './model-path.ts';
import { decodeTensor, parseSafetensorsHeader, type DecodedTensor, type SafetensorsHeader, type TensorInfo } from './safetensors.ts';
import { checkWeights } from './weights.ts';

export interface CheckpointFiles {
  configJson: unknown;
  generationConfigJson?: unknown;
  /** One entry per safetensors file (one for an unsharded model). */
  safetensors: Uint8Array[];
  /** The name of each safetensors file, for messages (default model.safetensors, or "safetensors shard i"). */
  safetensorsNames?: string[];
}

export interface LoadedModel {
  config: ModelConfig;
  /** Every tensor decoded to f32, PyTorch shapes. */
  tensors: Map<string, DecodedTensor>;
  /** Tensors present but not used by the architecture (logged, not an error). */
  ignored: string[];
}

export interface LoadOptions {
  /** Bytes the model's default memory plan may take (model-budget.ts); default DEFAULT_MODEL_BUDGET_BYTES. */
  budgetBytes?: number;
}

export class CheckpointError extends Error {
  override name = 'CheckpointError';
}

const INDEX_FILE = 'model.safetensors.index.json';
/** More shards than any published checkpoint uses (Llama-3.1-405B has 191). */
const MAX_SHARDS = 1024;

/**
 * The shard file names of a sharded checkpoint, from `model.safetensors.index.json`: each a safe relative path
 * ending in .safetensors (model-path.ts), so no entry can name a file outside the model's folder or another URL.
 */
export function shardFiles(indexJson: unknown, indexFile = INDEX_FILE): string[] {
  if (typeof indexJson !== 'object' || indexJson === null || Array.isArray(indexJson)) throw new CheckpointError(`${indexFile} must hold a JSON object with a "weight_map"`);
  const map = (indexJson as { weight_map?: unknown }).weight_map;
  if (typeof map !== 'object' || map === null || Array.isArray(map)) throw new CheckpointError(`${indexFile} has no "weight_map" object`);
  const shards = new Set<string>();
  for (const [tensor, shard] of Object.entries(map as Record<string, unknown>)) {
    shards.add(checkModelFilePath(shard, { file: indexFile, field: `weight_map["${tensor.slice(0, 100)}"]` }, '.safetensors'));
    if (shards.size > MAX_SHARDS) throw new CheckpointError(`${indexFile} names more than ${MAX_SHARDS} shards; no checkpoint of this size is plausible`);
  }
  if (shards.size === 0) throw new CheckpointError(`${indexFile} has an empty "weight_map": it names no shard`);
  return [...shards].sort();
}

export function loadCheckpoint(files: CheckpointFiles, options: LoadOptions = {}): LoadedModel {
  const config = parseModelConfig(files.configJson, files.generationConfigJson);
  checkModelFits(config, { budgetBytes: options.budgetBytes });
  const count = files.safetensors.length;
  if (count === 0) throw new CheckpointError('No safetensors file given: expected model.safetensors or its shards');
  const names = files.safetensors.map((_, i) => files.safetensorsNames?.[i] ?? (count === 1 ? 'model.safetensors' : `safetensors shard ${i + 1}`));

  // Headers first: every shard checked against its bytes, and every shape against the config, before decoding.
  const headers: SafetensorsHeader[] = [];
  const infos = new Map<string, TensorInfo>();
  const where = new Map<string, number>();
  files.safetensors.forEach((bytes, i) => {
    const header = parseSafetensorsHeader(bytes, bytes.length, names[i]);
    for (const [name, info] of header.tensors) {
      const other = where.get(name);
      if (other !== undefined) throw new CheckpointError(`Tensor "${name}" appears in two safetensors files, ${names[other]} and ${names[i]}`);
      where.set(name, i);
      infos.set(name, info);
    }
    headers.push(header);
  });
  const { ignored } = checkWeights(config, infos, { fileOf: (name) => names[where.get(name) ?? 0] });

  const tensors = new Map<string, DecodedTensor>();
  for (const [name, info] of infos) {
    const i = where.get(name)!;
    tensors.set(name, { dtype: info.dtype, shape: info.shape, data: decodeTensor(files.safetensors[i], headers[i], name, { requireFinite: true }) });
  }
  return { config, tensors, ignored };
}
