/**
 * Shared by the transformers.js e2e specs: the tiny random Qwen3 of llm-fixtures.ts written with its onnx-community
 * copy beside it (`npm run model:tiny -- --onnx fp32,q4`: onnx/model.onnx and onnx/model_q4.onnx with MatMulNBits,
 * GroupQueryAttention, … from the same weights), served with its subfolders at models/<name>/ (a context route, so
 * the environment worker's requests are answered), and the transformers.js panel's steps.
 */
import { readFileSync } from 'node:fs';
import { join, normalize } from 'node:path';
import type { BrowserContext, Locator, Page } from '@playwright/test';
import { expect } from './fixtures.ts';
import { makeTinyModel } from './llm-fixtures.ts';

/** The tiny model with its ONNX copies (fp32 and q4), in a new temp folder named `name`. */
export function makeTinyOnnxModel(name = 'tjs-tiny'): string {
  return makeTinyModel(name, ['--onnx', 'fp32,q4']);
}

/** Serves every file under `dir` (subfolders included) at models/<name>/…; 404 for anything else. */
export async function serveModelTree(context: BrowserContext, name: string, dir: string): Promise<void> {
  const prefix = `/models/${name}/`;
  await context.route(`**/models/${name}/**`, (route) => {
    const path = new URL(route.request().url()).pathname;
    const rel = normalize(decodeURIComponent(path.slice(path.indexOf(prefix) + prefix.length)));
    if (rel.startsWith('..')) return route.fulfill({ status: 404, body: 'not found' });
    let body: Buffer;
    try {
      body = readFileSync(join(dir, rel));
    } catch {
      return route.fulfill({ status: 404, body: 'not found' });
    }
    return route.fulfill({ status: 200, body, contentType: rel.endsWith('.json') ? 'application/json' : 'application/octet-stream' });
  });
}

export function tjsPanel(page: Page): Locator {
  return page.getByRole('form', { name: 'transformers.js (ONNX)' });
}

/** Loads models/<name>/ with transformers.js (dtype and device as named) and waits until it is ready. */
export async function loadTjsServed(page: Page, name: string, o: { dtype?: string; device?: 'auto' | 'wasm' } = {}): Promise<Locator> {
  const panel = tjsPanel(page);
  await panel.getByRole('combobox', { name: 'Source' }).selectOption({ label: 'Folder served with the app (URL or path)' });
  await panel.getByRole('textbox', { name: 'ONNX folder URL' }).fill(`models/${name}/`);
  await panel.getByRole('combobox', { name: 'ONNX dtype' }).selectOption(o.dtype ?? 'auto');
  await panel.getByRole('combobox', { name: 'Device' }).selectOption(o.device ?? 'auto');
  await panel.getByRole('button', { name: 'Load with transformers.js' }).click();
  await expect(panel.getByRole('status', { name: 'transformers.js ready' })).toContainText('qwen3', { timeout: 120_000 });
  return panel;
}

/** Plays one Watch episode of the chosen policy to its end (Instant speed); returns the transcript's steps. */
export async function playEpisode(page: Page, policy: string, questionId: string): Promise<Locator> {
  await page.getByRole('combobox', { name: 'Question', exact: true }).selectOption({ label: 'By id' });
  await page.getByRole('combobox', { name: 'Question id' }).fill(questionId);
  await page.getByRole('combobox', { name: 'Speed' }).selectOption({ label: 'Instant' });
  await page.getByRole('button', { name: 'New episode' }).click();
  await expect(page.getByText('Ready: press Play or Step.')).toBeVisible();
  await page.getByRole('button', { name: 'Play', exact: true }).click();
  await expect(page.getByRole('status', { name: 'Episode result' })).toBeVisible({ timeout: 240_000 });
  return page.getByRole('list', { name: `Transcript of ${policy}` }).getByRole('listitem');
}

/** Plays `count` single steps of the chosen policy in Watch on one demo question; returns the transcript's steps. */
export async function stepEpisode(page: Page, policy: string, questionId: string, count: number): Promise<Locator> {
  await page.getByRole('combobox', { name: 'Question', exact: true }).selectOption({ label: 'By id' });
  await page.getByRole('combobox', { name: 'Question id' }).fill(questionId);
  await page.getByRole('button', { name: 'New episode' }).click();
  await expect(page.getByText('Ready: press Play or Step.')).toBeVisible();
  const steps = page.getByRole('list', { name: `Transcript of ${policy}` }).getByRole('listitem');
  for (let i = 1; i <= count; i++) {
    await page.getByRole('button', { name: 'Step', exact: true }).click();
    await expect(steps).toHaveCount(i, { timeout: 300_000 });
  }
  return steps;
}

/** Runs the Engines panel and returns its table's rows as text (and logs them, for the record). */
export async function compareEngines(page: Page, promptTokens: number, newTokens: number): Promise<string[]> {
  const panel = page.getByRole('region', { name: 'Engines' });
  await panel.getByRole('spinbutton', { name: 'Prompt tokens' }).fill(String(promptTokens));
  await panel.getByRole('spinbutton', { name: 'New tokens' }).fill(String(newTokens));
  const table = panel.getByRole('table', { name: 'Engine speeds' });
  await panel.getByRole('button', { name: 'Compare engines' }).click();
  await expect(table).toHaveCount(0); // a measurement clears the last table at once; it takes seconds at least
  const rows = table.locator('tbody tr');
  await expect(rows.first()).toBeVisible({ timeout: 240_000 });
  const text = await rows.allInnerTexts();
  const extra = await panel.locator('p.meta').allInnerTexts();
  console.log(['Engines panel:', ...text.map((t) => t.replace(/\s+/g, ' ')), ...extra].join('\n  '));
  return text;
}
