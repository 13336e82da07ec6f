/**
 * Compare, as a person uses it: evaluate Random and Oracle on the same 20 demo questions in the Evaluate view, then
 * compare the two saved runs — the outcome matrix with its counts (Oracle solves everything, so nothing is "only A"
 * or "neither"), a filter, and one question's transcripts side by side with the differences marked. A second test
 * writes two runs straight into IndexedDB, in the record shape the Evaluate view saves, so every cell of the matrix
 * and a repeated episode are exercised with known counts; the choice of runs survives a reload. Screenshots in
 * light, dark and a narrow window.
 */
import type { Page } from '@playwright/test';
import type { RunSummary, SavedRun } from '../src/eval/run-store.ts';
import type { EpisodeRecord, TranscriptStep } from '../src/eval/transcript.ts';
import { expect, openView, test } from './fixtures.ts';

async function runEvaluation(page: Page, policy: string, episodes: number): Promise<void> {
  const form = page.getByRole('form', { name: 'Evaluation settings' });
  await form.getByRole('combobox', { name: 'Policy' }).selectOption({ label: policy });
  await form.getByRole('combobox', { name: 'Split' }).selectOption('eval');
  const all = form.getByRole('checkbox', { name: /All questions of the split/ });
  if (await all.isChecked()) await all.uncheck();
  await form.getByRole('spinbutton', { name: 'Episodes' }).fill(String(episodes));
  await form.getByRole('spinbutton', { name: 'Seed' }).fill('0');
  await form.getByRole('button', { name: 'Run evaluation' }).click();
  await expect(page.getByRole('heading', { name: `${policy} · demo/eval · ${episodes} episodes`, level: 3 })).toBeVisible({ timeout: 60_000 });
  await expect(page.getByText('saved in this browser')).toBeVisible();
}

/** The count a matrix cell shows. */
async function cellCount(page: Page, label: string): Promise<number> {
  const name = (await page.getByRole('button', { name: new RegExp(`^${label}: \\d+ question`) }).getAttribute('aria-label')) ?? '';
  return Number(/: (\d+) question/.exec(name)?.[1] ?? NaN);
}

const aligned = (page: Page) => page.getByRole('table', { name: 'Steps of A and B, aligned' });

test('comparing Random and Oracle runs made in the Evaluate view', async ({ page, shot }) => {
  test.setTimeout(120_000);
  await openView(page, '#/compare');
  await expect(page.getByText('Comparing needs two saved runs; there are none.')).toBeVisible();

  await openView(page, '#/evaluate');
  await runEvaluation(page, 'Random', 20);
  await runEvaluation(page, 'Oracle', 20);

  await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Compare' }).click();
  // The two newest runs, the older as A.
  await expect(page.getByRole('combobox', { name: 'Run A' }).getByRole('option', { selected: true })).toContainText('random · demo/eval · 20 episodes');
  await expect(page.getByRole('combobox', { name: 'Run B' }).getByRole('option', { selected: true })).toContainText('oracle · demo/eval · 20 episodes');
  await expect(page.getByRole('table', { name: /Outcome per question/ })).toBeVisible();
  const both = await cellCount(page, 'Both solved');
  const onlyB = await cellCount(page, 'Only B solved');
  expect(await cellCount(page, 'Only A solved')).toBe(0);
  expect(await cellCount(page, 'Neither solved')).toBe(0);
  expect(both + onlyB).toBeGreaterThan(0);
  expect(onlyB).toBeGreaterThan(both); // Random rarely answers correctly
  await expect(page.getByRole('button', { name: /^All questions \(\d+\)$/ })).toHaveAttribute('aria-pressed', 'true');

  // Only the questions Oracle solved and Random did not; open the first side by side.
  await page.getByRole('button', { name: /^Only B solved: / }).click();
  await expect(page.getByRole('button', { name: /^Only B solved: / })).toHaveAttribute('aria-pressed', 'true');
  const questions = page.getByRole('button', { name: /^Compare transcripts: / });
  await expect(questions).toHaveCount(onlyB);
  const first = questions.first();
  const questionText = ((await first.textContent()) ?? '').trim();
  await first.click();
  const panel = page.getByRole('region', { name: questionText });
  await expect(panel.getByRole('heading', { name: questionText })).toBeVisible();
  await expect(aligned(page)).toBeVisible();
  const header = aligned(page).getByRole('columnheader');
  await expect(header.nth(0)).toContainText('random');
  await expect(header.nth(0)).toContainText('not solved');
  await expect(header.nth(1)).toContainText('oracle');
  await expect(header.nth(1)).toContainText('solved · return');
  // Oracle answers; at least one row differs and is marked in words.
  await expect(aligned(page).getByText(/^ANSWER /).first()).toBeVisible();
  await expect(panel.getByRole('status')).toContainText(/\d+ of \d+ aligned rows differ/);
  await expect(aligned(page).getByText(/different actions|only A took a step here|only B took a step here|same action, different result/).first()).toBeVisible();
  await shot('compare-random-oracle-light');

  await page.getByRole('combobox', { name: 'Theme' }).selectOption('dark');
  await shot('compare-random-oracle-dark');
  await page.setViewportSize({ width: 400, height: 900 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow, 'the narrow layout scrolls sideways').toBeLessThanOrEqual(1);
  await shot('compare-random-oracle-narrow-dark');
});

function step(actionText: string, body: string, reward: number, stepsLeft: number, episodeReturn: number): TranscriptStep {
  const [type, ...rest] = actionText.split(' ');
  const arg = rest.join(' ');
  return {
    action: type === 'ANSWER' ? { type: 'ANSWER', value: arg } : type === 'QUERY' ? { type: 'QUERY', sql: arg } : { type: 'DESCRIBE', table: arg },
    actionText,
    observation: `> ${actionText}\n${body}\nSteps left: ${stepsLeft}`,
    reward,
    components: { correctness: reward >= 1 ? 1 : 0, progress: 0, operational: reward >= 1 ? 0 : reward },
    outcome: 'ok',
    episodeReturn,
  };
}

function record(policy: string, questionId: string, difficulty: EpisodeRecord['difficulty'], success: boolean, seed = 0): EpisodeRecord {
  const transcript = [
    step('DESCRIBE book', 'Table book: id INTEGER, title TEXT', 0.02, 9, 0.02),
    ...(policy === 'oracle' ? [step('QUERY SELECT count(*) FROM book', 'count(*)\n12', 0.02, 8, 0.04)] : [step('SAMPLE member', 'id | name\n1  | <b>Ann</b>', 0.02, 8, 0.04)]),
    step(`ANSWER ${success ? '12' : '7'}`, success ? 'Answer submitted: correct.' : 'Answer submitted: incorrect.', success ? 1 : 0, 7, success ? 1.04 : 0.04),
  ];
  return {
    policy,
    dataset: 'demo',
    questionId,
    dbId: questionId.startsWith('s') ? 'shop' : 'library',
    question: `How many books are there? (${questionId})`,
    difficulty,
    split: 'eval',
    seed,
    success,
    episodeReturn: transcript[2].episodeReturn,
    components: { correctness: success ? 1 : 0, progress: 0, operational: 0.04 },
    steps: 3,
    terminated: true,
    truncated: false,
    transcript,
  };
}

function savedRun(id: string, policy: string, createdAt: number, records: EpisodeRecord[]): SavedRun {
  const success = records.filter((r) => r.success).length / records.length;
  const summary: RunSummary = {
    id,
    createdAt,
    durationMs: 1000,
    policy,
    dataset: 'demo',
    split: 'eval',
    seed: 0,
    episodes: records.length,
    success_rate: success,
    mean_return: 0.5,
    mean_steps: 3,
    mean_components: { correctness: success, progress: 0, operational: 0.04 },
    by_difficulty: {},
    by_database: {},
  };
  return { summary, records };
}

/** Writes runs into the app's IndexedDB as the run store does (same database, stores and record shape). */
async function writeRuns(page: Page, runs: SavedRun[]): Promise<void> {
  await page.evaluate(async (all) => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const open = indexedDB.open('sqlenv-runs', 1);
      open.onupgradeneeded = () => {
        open.result.createObjectStore('summaries', { keyPath: 'id' }).createIndex('createdAt', 'createdAt');
        open.result.createObjectStore('episodes', { keyPath: 'id' });
      };
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => reject(open.error ?? new Error('indexedDB.open failed'));
    });
    const tx = db.transaction(['summaries', 'episodes'], 'readwrite');
    for (const run of all) {
      tx.objectStore('summaries').put(run.summary);
      tx.objectStore('episodes').put({ id: run.summary.id, records: run.records });
    }
    await new Promise<void>((resolve, reject) => {
      tx.oncomplete = () => resolve();
      tx.onerror = () => reject(tx.error ?? new Error('transaction failed'));
    });
    db.close();
  }, runs);
}

test('every cell of the matrix, filters, a repeated episode, and the choice kept across a reload', async ({ page, shot }) => {
  await openView(page, '#/compare');
  await expect(page.getByText('Comparing needs two saved runs; there are none.')).toBeVisible();
  const base = [record('base', 'l-1', 'easy', true), record('base', 'l-2', 'easy', true), record('base', 'l-3', 'hard', false), record('base', 's-1', 'hard', false), record('base', 's-2', 'medium', false), record('base', 'x-only', 'easy', true)];
  const trained = [
    record('oracle', 'l-1', 'easy', true),
    record('oracle', 'l-2', 'easy', false),
    record('oracle', 'l-3', 'hard', true),
    record('oracle', 's-1', 'hard', true),
    record('oracle', 's-1', 'hard', true, 1),
    record('oracle', 's-2', 'medium', false),
  ];
  await writeRuns(page, [savedRun('run-old', 'base', 1_000, base), savedRun('run-new', 'oracle', 2_000, trained), savedRun('run-other', 'random', 500, base.slice(0, 2))]);
  await page.reload();

  await expect(page.getByRole('table', { name: /Outcome per question/ })).toBeVisible();
  expect([await cellCount(page, 'Both solved'), await cellCount(page, 'Only A solved'), await cellCount(page, 'Only B solved'), await cellCount(page, 'Neither solved')]).toEqual([1, 1, 2, 1]);
  await expect(page.getByText('Left out: 1 question only A played, 0 only B played')).toBeVisible();
  await expect(page.getByRole('status').filter({ hasText: /^5 of 5 questions/ })).toBeVisible();

  // Filters: difficulty narrows the list and the counts; words search the question text and id.
  await page.getByRole('combobox', { name: 'Difficulty' }).selectOption('hard');
  expect([await cellCount(page, 'Both solved'), await cellCount(page, 'Only B solved'), await cellCount(page, 'Neither solved')]).toEqual([0, 2, 0]);
  await page.getByRole('searchbox', { name: 'Search questions' }).fill('s-1');
  await expect(page.getByRole('button', { name: /^Compare transcripts: / })).toHaveCount(1);
  await page.getByRole('button', { name: 'Clear filters' }).click();
  await expect(page.getByRole('button', { name: /^Compare transcripts: / })).toHaveCount(5);

  // s-1: B played it twice; the side-by-side view offers both episodes. HTML in the data stays text.
  await page.getByRole('button', { name: 'Compare transcripts: How many books are there? (s-1)' }).click();
  await expect(page.getByRole('combobox', { name: "B's episode" })).toHaveValue('0');
  await page.getByRole('combobox', { name: "B's episode" }).selectOption({ index: 1 });
  const table = aligned(page);
  await expect(table.getByRole('row')).toHaveCount(4); // header + DESCRIBE (same) + SAMPLE/QUERY + ANSWER
  await expect(table.getByRole('row').nth(1)).not.toContainText('≠');
  await expect(table.getByRole('row').nth(2)).toContainText('different actions');
  await expect(table.getByText('<b>Ann</b>')).toBeVisible();
  await expect(page.locator('.aligned b')).toHaveCount(0);
  await shot('compare-matrix-all-cells');

  // Swapping exchanges A and B, and the counts follow.
  await page.getByRole('button', { name: 'Swap runs A and B' }).click();
  expect([await cellCount(page, 'Only A solved'), await cellCount(page, 'Only B solved')]).toEqual([2, 1]);
  await page.getByRole('combobox', { name: 'Run B' }).selectOption('run-other');
  await page.reload();
  await expect(page.getByRole('combobox', { name: 'Run A' }).getByRole('option', { selected: true })).toContainText('oracle');
  await expect(page.getByRole('combobox', { name: 'Run B' }).getByRole('option', { selected: true })).toContainText('random');
  // Oracle's run against the two-question Random run: l-1 both solved, l-2 only Random.
  expect([await cellCount(page, 'Both solved'), await cellCount(page, 'Only B solved')]).toEqual([1, 1]);
});
