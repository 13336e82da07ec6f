/**
 * `tsx scripts/export-onnx.ts --model DIR [--out FILE] [--max-positions N]`: writes an ONNX copy of a Hugging Face
 * Qwen2/Qwen3 folder (one made by `npm run model:tiny`, or any checkpoint the loader accepts) as `DIR/onnx/model.onnx`,
 * the file transformers.js loads for `AutoModelForCausalLM.from_pretrained(DIR, { dtype: 'fp32' })`. The graph is
 * src/model/onnx/qwen.ts (f32 weights, standard opset-17 ops, KV cache in and out); tests/model/onnx-export.test.ts
 * checks it against the float64 reference with onnxruntime-node, and `npm run bench:engine` times transformers.js
 * on it beside the WebGPU engine.
 *
 * The whole model is one protobuf (no external data), so it must stay under protobuf's 2 GiB of f32 weights and RoPE
 * tables: the tiny models and Qwen2.5-0.5B fit; Qwen3-0.6B (2.4 GB in f32) is refused with an OnnxExportError.
 */
import { parseCliArgs, runCli, UsageError } from '../e2e/model/serve.ts';
import { exportOnnxFolder } from '../src/model/onnx/folder-node.ts';

const USAGE = 'usage: tsx scripts/export-onnx.ts --model DIR [--out FILE (default DIR/onnx/model.onnx)] [--max-positions N]';

async function main(): Promise<void> {
  const args = parseCliArgs(process.argv.slice(2), USAGE);
  const model = args.string('model');
  if (model === undefined) throw new UsageError('--model DIR is required');
  const out = args.string('out');
  const maxPositions = args.int('max-positions');
  args.done();
  const started = performance.now();
  const written = await exportOnnxFolder(model, out, maxPositions);
  console.log(`wrote ${written.path} (${(written.bytes / 1e6).toFixed(1)} MB) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

runCli(main, USAGE);
