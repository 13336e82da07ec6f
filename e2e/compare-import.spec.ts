/**
 * Run files in Compare, as a person uses them: two run files (written here by the same writer the CLI and the page
 * use, with outcomes chosen so the figures are known by hand) are imported by the file button; the summary line
 * states the paired difference ("+5 of 10, p = 0.13": 6 questions only B solved, 1 only A, so McNemar's exact p is
 * 2·(1 + 7)/2^7 = 0.125); opening a question puts the runs and the question in the link, and that link opened in a
 * new tab shows the same comparison and question. A hostile file is refused with its reason and changes nothing; a
 * link naming a run file by URL imports it.
 */
import type { Page } from '@playwright/test';
import { ENV_VERSION } from '../src/env/env.ts';
import { toRunFile } from '../src/eval/run-file.ts';
import type { EpisodeRecord } from '../src/eval/transcript.ts';
import { expect, openView, test } from './fixtures.ts';

/** 10 questions: q0 both solved, q1 only A, q2–q7 only B, q8–q9 neither. */
const SOLVED: Array<[boolean, boolean]> = [[true, true], [true, false], ...Array<[boolean, boolean]>(6).fill([false, true]), [false, false], [false, false]];

function episode(policy: string, i: number, success: boolean): EpisodeRecord {
  const answer = success ? '12' : '7';
  return {
    policy,
    dataset: 'demo',
    questionId: `q${i}`,
    dbId: 'library',
    question: `How many books are on shelf ${i}?`,
    difficulty: i < 5 ? 'easy' : 'hard',
    split: 'eval',
    seed: i,
    success,
    episodeReturn: success ? 1 : -0.01,
    components: { correctness: success ? 1 : 0, progress: 0, operational: -0.01 },
    steps: 1,
    terminated: true,
    truncated: false,
    transcript: [
      {
        action: { type: 'ANSWER', value: answer },
        actionText: `ANSWER ${answer}`,
        observation: `> ANSWER ${answer}\nAnswer submitted: ${success ? 'correct' : 'incorrect'}.`,
        reward: success ? 1 : -0.01,
        components: { correctness: success ? 1 : 0, progress: 0, operational: -0.01 },
        outcome: 'ok',
        episodeReturn: success ? 1 : -0.01,
      },
    ],
  };
}

function runFile(id: string, policy: string, side: 0 | 1): string {
  const records = SOLVED.map((s, i) => episode(policy, i, s[side]));
  return toRunFile({ envVersion: ENV_VERSION, id, dataset: 'demo', split: 'eval', policy, model: null, adapter: null, seed: 0, settings: {}, createdAt: 1_700_000_000_000 + side, durationMs: 1, writer: 'e2e' }, records);
}

const fileInput = (page: Page) => page.getByLabel('Import run files…');
const summaryLine = (page: Page) => page.getByRole('status', { name: 'Difference B − A' });

test('imported run files: the summary figures, and a link that opens the same comparison and question', async ({ page, context, shot }) => {
  await openView(page, '#/compare');
  await expect(page.getByText('Comparing needs two saved runs; there are none.')).toBeVisible();

  // A hostile file: refused with its reason, nothing saved.
  await fileInput(page).setInputFiles({ name: 'bad.jsonl', mimeType: 'application/x-ndjson', buffer: Buffer.from('{"format":"sqlenv-run","__proto__":{"x":1}}\n') });
  await expect(page.getByRole('alert')).toContainText("Not imported — bad.jsonl: line 1 has a key named '__proto__'");
  await expect(page.getByText('Comparing needs two saved runs; there are none.')).toBeVisible();

  await fileInput(page).setInputFiles([
    { name: 'base.jsonl', mimeType: 'application/x-ndjson', buffer: Buffer.from(runFile('run-base', 'base', 0)) },
    { name: 'tuned.jsonl', mimeType: 'application/x-ndjson', buffer: Buffer.from(runFile('run-tuned', 'tuned', 1)) },
  ]);
  await expect(page.getByRole('combobox', { name: 'Run A' })).toHaveValue('run-base');
  await expect(page.getByRole('combobox', { name: 'Run B' })).toHaveValue('run-tuned');
  await expect(summaryLine(page)).toContainText('success +5 of 10, p = 0.13');
  await expect(summaryLine(page)).toContainText('6 only B solved, 1 only A');
  await expect(page.getByRole('button', { name: /^Only B solved: 6 questions/ })).toBeVisible();

  await page.getByRole('button', { name: 'Compare transcripts: How many books are on shelf 3?' }).click();
  await expect(page.getByRole('heading', { name: 'How many books are on shelf 3?' })).toBeVisible();
  await expect.poll(() => new URL(page.url()).hash).toBe('#/compare?a=run-base&b=run-tuned&q=demo%2Fq3');
  await shot('compare-import-summary');

  // The shared link, opened in a new tab, shows the same runs and question.
  const link = page.url();
  const other = await context.newPage();
  await other.goto(link);
  await expect(other.getByRole('combobox', { name: 'Run A' })).toHaveValue('run-base');
  await expect(other.getByRole('combobox', { name: 'Run B' })).toHaveValue('run-tuned');
  await expect(other.getByRole('heading', { name: 'How many books are on shelf 3?' })).toBeVisible();
  await expect(summaryLine(other)).toContainText('success +5 of 10, p = 0.13');
  await other.close();
});

test('a link naming a run file by URL imports it', async ({ page }) => {
  await page.route('https://runs.example/**', (route) =>
    route.fulfill({ status: 200, contentType: 'application/x-ndjson', headers: { 'access-control-allow-origin': '*' }, body: route.request().url().endsWith('a.jsonl') ? runFile('url-a', 'base', 0) : runFile('url-b', 'tuned', 1) }),
  );
  await openView(page, `#/compare?a=${encodeURIComponent('https://runs.example/a.jsonl')}&b=${encodeURIComponent('https://runs.example/b.jsonl')}&q=demo%2Fq1`);
  await expect(page.getByRole('combobox', { name: 'Run A' })).toHaveValue('url-a');
  await expect(page.getByRole('combobox', { name: 'Run B' })).toHaveValue('url-b');
  await expect(page.getByRole('heading', { name: 'How many books are on shelf 1?' })).toBeVisible();
  await expect.poll(() => new URL(page.url()).hash).toBe('#/compare?a=url-a&b=url-b&q=demo%2Fq1');
});

test('a run file dropped on Evaluate’s saved runs opens there, and its export reads back the same', async ({ page }) => {
  await openView(page, '#/evaluate');
  const text = runFile('run-dropped', 'tuned', 1);
  await page.getByRole('group', { name: 'Import run files' }).first().evaluate((zone, body) => {
    const data = new DataTransfer();
    data.items.add(new File([body], 'dropped.jsonl', { type: 'application/x-ndjson' }));
    zone.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
  }, text);
  await expect(page.getByRole('heading', { name: /tuned · demo\/eval · 10 episodes/, level: 3 })).toBeVisible();
  // 7 of the 10 questions solved (q0, q2–q7).
  await expect(page.getByRole('list', { name: 'Saved runs' }).getByText(/success 70\.0%/)).toBeVisible();
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export JSONL' }).click()]);
  const exported = await download.path().then((p) => import('node:fs/promises').then((fs) => fs.readFile(p, 'utf8')));
  const [header, ...lines] = exported.trimEnd().split('\n');
  expect(JSON.parse(header)).toMatchObject({ format: 'sqlenv-run', id: 'run-dropped', policy: 'tuned', writer: 'e2e', episodes: 10 });
  expect(lines.map((l) => JSON.parse(l) as unknown)).toEqual(text.trimEnd().split('\n').slice(1).map((l) => JSON.parse(l) as unknown));
});
