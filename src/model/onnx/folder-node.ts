/**
 * Node only: the ONNX copy of a Hugging Face model folder, written as `DIR/onnx/model.onnx` (where transformers.js
 * looks for the fp32 decoder). Used by scripts/export-onnx.ts, the bench and the tests; the page never imports it.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { loadModelFolder } from '../files-node.ts';
import { exportQwenOnnx } from './qwen.ts';

/** Reads the folder, exports it, writes `out` (default DIR/onnx/model.onnx); returns the path and size in bytes. */
export async function exportOnnxFolder(dir: string, out = join(dir, 'onnx', 'model.onnx'), maxPositions?: number): Promise<{ path: string; bytes: number }> {
  const model = await loadModelFolder(dir);
  const bytes = exportQwenOnnx(model.config, model.tensors, { maxPositions });
  await mkdir(dirname(out), { recursive: true });
  await writeFile(out, bytes);
  return { path: out, bytes: bytes.length };
}
