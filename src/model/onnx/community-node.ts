/**
 * Node only: writes the onnx-community layout of a model folder — `DIR/onnx/model.onnx` (fp32),
 * `DIR/onnx/model_q4.onnx` (4-bit MatMulNBits, f32 activations) and `model_q4f16.onnx` (the same, f16) — beside the Hugging Face files (config.json, tokenizer files) that
 * `writeTinyModel` writes, so one folder serves both the engine (safetensors) and transformers.js (`dtype: 'fp32'`,
 * `'q4'`, `'q4f16'`). Used by `npm run model:tiny -- --onnx fp32,q4,q4f16`, tests and e2e fixtures; the page never imports it.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ModelConfig } from '../config.ts';
import { loadModelFolder } from '../files-node.ts';
import type { TensorMap } from '../weights.ts';
import { COMMUNITY_DTYPES, communityOnnxFileName, exportCommunityOnnx, type CommunityDtype } from './community.ts';
import { OnnxExportError } from './qwen.ts';

export interface WriteCommunityOnnxOptions {
  dtypes: readonly CommunityDtype[];
  /** Rows of the RoPE caches; default the config's max_position_embeddings. */
  maxPositions?: number;
}

/** Parses a `--onnx` list such as "q4,fp32". */
export function parseCommunityDtypes(text: string): CommunityDtype[] {
  const names = text.split(',').map((s) => s.trim());
  const known = Object.keys(COMMUNITY_DTYPES);
  for (const name of names) {
    if (!known.includes(name)) throw new OnnxExportError(`unknown ONNX dtype '${name}': choose from ${known.join(', ')}`);
  }
  return [...new Set(names)] as CommunityDtype[];
}

/** Writes `DIR/onnx/model{suffix}.onnx` for each dtype from these weights; returns the paths written (relative to DIR). */
export async function writeCommunityOnnx(dir: string, config: ModelConfig, weights: TensorMap, options: WriteCommunityOnnxOptions): Promise<string[]> {
  if (options.dtypes.length === 0) throw new OnnxExportError('no ONNX dtype asked for: pass at least one of ' + Object.keys(COMMUNITY_DTYPES).join(', '));
  await mkdir(join(dir, 'onnx'), { recursive: true });
  const written: string[] = [];
  for (const dtype of options.dtypes) {
    const name = join('onnx', communityOnnxFileName(dtype));
    await writeFile(join(dir, name), exportCommunityOnnx(config, weights, { dtype, maxPositions: options.maxPositions }));
    written.push(name);
  }
  return written;
}

/** Same, from the folder's own checkpoint (as loaded, so bf16/f16 rounding is what both backends see). */
export async function writeCommunityOnnxForFolder(dir: string, options: WriteCommunityOnnxOptions): Promise<string[]> {
  const model = await loadModelFolder(dir);
  return writeCommunityOnnx(dir, model.config, model.tensors, options);
}
