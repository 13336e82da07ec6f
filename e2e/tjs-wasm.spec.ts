/**
 * transformers.js without WebGPU: Chromium started with `--disable-webgpu` (and without `--enable-unsafe-webgpu`),
 * as a browser without WebGPU is. The Model panel says the WebGPU engine cannot run here and points at
 * transformers.js; the tiny model's onnx-community export (q4: MatMulNBits, GroupQueryAttention, …) loads on WASM
 * from a folder served with the app, its policy plays a demo episode to its end in Watch, and the Engines panel times
 * it. ONNX Runtime's WASM comes from the app itself: no request leaves 127.0.0.1.
 */
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { CHROMIUM, chromiumArgs } from '../playwright.config.ts';
import { expect, openView, test } from './fixtures.ts';
import { closeNetwork, fillSettings, modelPanel } from './llm-fixtures.ts';
import { compareEngines, loadTjsServed, makeTinyOnnxModel, playEpisode, serveModelTree } from './tjs-fixtures.ts';

test.use({ launchOptions: { executablePath: CHROMIUM, args: [...chromiumArgs.filter((a) => a !== '--enable-unsafe-webgpu'), '--disable-webgpu'] } });

let dir = '';

test.beforeAll(() => {
  dir = makeTinyOnnxModel();
});

test.afterAll(() => {
  if (dir) rmSync(dirname(dir), { recursive: true, force: true });
});

test('without WebGPU, the transformers.js policy plays a demo episode on WASM', async ({ page, context, shot }) => {
  test.setTimeout(240_000);
  const outside = await closeNetwork(context);
  await serveModelTree(context, 'tjs-tiny', dir);
  await openView(page, '#/watch');
  // The premise: no adapter (Chromium may keep `navigator.gpu` and answer null).
  expect(await page.evaluate(async () => ('gpu' in navigator ? (await navigator.gpu.requestAdapter()) !== null : false))).toBe(false);
  await expect(modelPanel(page).getByRole('note', { name: 'No WebGPU' })).toContainText('transformers.js on WASM');

  await fillSettings(modelPanel(page), { maxNewTokens: 8, temperature: 0 });
  const panel = await loadTjsServed(page, 'tjs-tiny', { dtype: 'q4' });
  await expect(panel.getByRole('status', { name: 'transformers.js ready' })).toContainText('q4, on WASM');
  await expect(page.getByRole('combobox', { name: 'Policy' })).toHaveValue('qwen-tjs');

  const steps = await playEpisode(page, 'qwen-tjs', 'demo-library-001');
  expect(await steps.count()).toBeGreaterThanOrEqual(1);
  // Random weights: garbage text, parsed by the engine's parser into an invalid action with its reason.
  await expect(steps.first()).toContainText(/invalid|no tool call|tool call|cut off|token limit/i);
  await expect(steps.first().locator('.raw-text summary')).toContainText(/\d+ tokens, \d+\.\d tokens\/s/);

  const rows = await compareEngines(page, 16, 8);
  expect(rows).toHaveLength(1);
  expect(rows[0]).toContain('transformers.js');
  expect(rows[0]).toMatch(/WASM, q4[\s\S]*ms[\s\S]*tokens\/s[\s\S]*tokens\/s/);
  await shot('watch-tjs-wasm');
  expect(outside, 'requests that left the app').toEqual([]);
});
