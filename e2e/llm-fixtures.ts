/**
 * Shared by the LLM e2e specs: a tiny random Qwen3 written by scripts/make-tiny-model.ts into a temp folder (hidden
 * 32, bf16: about 10 MB, most of it the real 151,936-row embedding), served to the page under models/<name>/ by a
 * context-level route (the environment worker fetches it, and only context routes see workers' requests), and the
 * Model panel's steps to load it with settings.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Locator, Page } from '@playwright/test';
import { expect } from './fixtures.ts';

/** Writes a tiny model into a new temp folder (`name` is the folder's own name) and returns its path. */
export function makeTinyModel(name = 'tiny', extra: string[] = []): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'sqlenv-llm-')), name);
  execFileSync('npx', ['tsx', 'scripts/make-tiny-model.ts', '--out', dir, '--hidden', '32', '--dtype', 'bf16', ...extra], { stdio: 'ignore' });
  return dir;
}

/** Serves the files of `dir` at models/<name>/ to the page and its workers; 404 for anything else there. */
export async function serveModel(context: BrowserContext, name: string, dir: string): Promise<void> {
  await context.route(`**/models/${name}/*`, (route) => {
    const file = new URL(route.request().url()).pathname.split('/').pop() ?? '';
    let body: Buffer;
    try {
      body = readFileSync(join(dir, file));
    } catch {
      return route.fulfill({ status: 404, body: 'not found' });
    }
    return route.fulfill({ status: 200, body, contentType: file.endsWith('.json') ? 'application/json' : 'application/octet-stream' });
  });
}

/** Records requests that leave 127.0.0.1 (and stops them). */
export async function closeNetwork(context: BrowserContext): Promise<string[]> {
  const outside: string[] = [];
  await context.route(
    (url) => url.hostname !== '127.0.0.1',
    (route) => {
      outside.push(route.request().url());
      return route.abort();
    },
  );
  return outside;
}

export interface PanelSettings {
  maxNewTokens?: number;
  shots?: '0' | '1' | '3';
  temperature?: number;
  weights?: 'q4' | 'q8' | 'f16';
}

export function modelPanel(page: Page): Locator {
  return page.getByRole('form', { name: 'Model' });
}

/** Fills the panel's settings. */
export async function fillSettings(panel: Locator, s: PanelSettings): Promise<void> {
  if (s.maxNewTokens !== undefined) await panel.getByRole('spinbutton', { name: 'Max new tokens' }).fill(String(s.maxNewTokens));
  if (s.temperature !== undefined) await panel.getByRole('spinbutton', { name: 'Temperature' }).fill(String(s.temperature));
  if (s.shots !== undefined) await panel.getByRole('combobox', { name: 'Few-shot examples' }).selectOption(s.shots);
  if (s.weights !== undefined) await panel.getByRole('combobox', { name: 'Decode weights' }).selectOption(s.weights);
}

/** Loads the model served at models/<name>/ through the panel and waits until it is ready. */
export async function loadServedModel(page: Page, name: string, s: PanelSettings = {}): Promise<Locator> {
  const panel = modelPanel(page);
  await panel.getByRole('combobox', { name: 'Model source' }).selectOption({ label: 'Folder served with the app (URL or path)' });
  await panel.getByRole('textbox', { name: 'Folder URL' }).fill(`models/${name}/`);
  await fillSettings(panel, s);
  await panel.getByRole('button', { name: 'Load model' }).click();
  await expect(panel.getByRole('status', { name: 'Model loaded' })).toContainText('qwen3', { timeout: 120_000 });
  return panel;
}

/** Plays `steps` single steps of the chosen policy on one demo question in Watch (a new episode first). */
export async function watchSteps(page: Page, questionId: string, steps: number): Promise<Locator> {
  await page.getByRole('combobox', { name: 'Question', exact: true }).selectOption({ label: 'By id' });
  await page.getByRole('combobox', { name: 'Question id' }).fill(questionId);
  await page.getByRole('button', { name: 'New episode' }).click();
  await expect(page.getByText('Ready: press Play or Step.')).toBeVisible();
  const list = page.getByRole('list', { name: 'Transcript of qwen' }).getByRole('listitem');
  for (let i = 1; i <= steps; i++) {
    await page.getByRole('button', { name: 'Step', exact: true }).click();
    await expect(list).toHaveCount(i, { timeout: 120_000 });
  }
  return list;
}

/** The prompt size a transcript step's summary states ("prompt N tokens"). */
export async function promptTokens(step: Locator): Promise<number> {
  const text = (await step.locator('.raw-text summary').textContent()) ?? '';
  const m = /prompt (\d+) tokens/.exec(text);
  if (!m) throw new Error(`no prompt size in '${text}'`);
  return Number(m[1]);
}
