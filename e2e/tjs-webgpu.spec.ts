/**
 * Both backends on WebGPU (SwiftShader here): the tiny model's safetensors in the WebGPU engine and its onnx-community
 * export (q4) in transformers.js, from one served folder. The Engines panel times both on the same prompt and prints a
 * row for each; the transformers.js policy plays a step of a demo episode on WebGPU (ONNX Runtime's WebGPU backend on
 * SwiftShader takes minutes over a whole episode's long prompts). transformers.js on WASM, its whole episode and its
 * Engines row, is tjs-wasm.spec.ts; `npm run bench:engine` times the engine against it on WASM.
 */
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { expect, openView, test } from './fixtures.ts';
import { closeNetwork, loadServedModel } from './llm-fixtures.ts';
import { compareEngines, loadTjsServed, makeTinyOnnxModel, serveModelTree, stepEpisode } from './tjs-fixtures.ts';

let dir = '';

test.beforeAll(() => {
  dir = makeTinyOnnxModel();
});

test.afterAll(() => {
  if (dir) rmSync(dirname(dir), { recursive: true, force: true });
});

test('transformers.js plays on WebGPU, and the Engines panel times it beside the WebGPU engine', async ({ page, context, shot }) => {
  test.setTimeout(540_000);
  const outside = await closeNetwork(context);
  await serveModelTree(context, 'tjs-tiny', dir);
  await openView(page, '#/watch');
  await expect(page.getByRole('note', { name: 'No WebGPU' })).toHaveCount(0);

  // 2 new tokens a turn: ONNX Runtime's WebGPU backend on SwiftShader takes about 10 s a decoded token here.
  await loadServedModel(page, 'tjs-tiny', { maxNewTokens: 2, temperature: 0, weights: 'f16' });
  const panel = await loadTjsServed(page, 'tjs-tiny', { dtype: 'q4' });
  await expect(panel.getByRole('status', { name: 'transformers.js ready' })).toContainText('q4, on WebGPU');
  await expect(page.getByRole('combobox', { name: 'Policy' })).toHaveValue('qwen-tjs');

  const gpuRows = await compareEngines(page, 8, 3);
  expect(gpuRows).toHaveLength(2);
  expect(gpuRows[0]).toContain('WebGPU engine');
  expect(gpuRows[1]).toMatch(/transformers\.js[\s\S]*WebGPU, q4/);
  await expect(page.getByRole('region', { name: 'Engines' })).toContainText('WebGPU engine vs transformers.js: decode');
  await shot('watch-engines-webgpu');

  // One step of a demo episode on WebGPU (a whole episode is the WASM spec's: here each turn's long prompt is slow).
  const steps = await stepEpisode(page, 'qwen-tjs', 'demo-library-001', 1);
  await expect(steps.first()).toContainText(/invalid|no tool call|tool call|cut off|token limit/i);
  await expect(steps.first().locator('.raw-text summary')).toContainText(/\d+ tokens, \d+\.\d tokens\/s/);

  expect(outside, 'requests that left the app').toEqual([]);
});
