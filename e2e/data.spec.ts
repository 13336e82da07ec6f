/**
 * The Data view, as a person uses it: the datasets with their counts (the demo's, checked against its manifest);
 * importing a small Spider-layout zip and playing one of its questions, the dataset still there after a reload and
 * then removed; a folder in the wrong layout and a broken zip giving clear messages; opening a SQLite file for free
 * play (chosen, and dropped) and playing it; a corrupt file giving a clear error. The Spider-layout files are made
 * here with sql.js and fflate (nothing is copied from Spider). Screenshots in light, dark and a narrow window.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { zipSync } from 'fflate';
import initSqlJs from 'sql.js';
import type { DatasetManifest } from '../src/data/types.ts';
import { expect, HAS_SPIDER, openView, test } from './fixtures.ts';
import { transcriptSteps, typeSql } from './play-helpers.ts';

/** A tiny zoo database: three pets (so "How many pets are there?" is 3). */
async function zooDatabase(): Promise<Uint8Array> {
  const SQL = await initSqlJs();
  const db = new SQL.Database();
  db.run('CREATE TABLE pets (id INTEGER PRIMARY KEY, name TEXT, age INTEGER, owner TEXT)');
  db.run("INSERT INTO pets VALUES (1, 'Rex', 3, 'Ann'), (2, 'Tom', 5, 'Ann'), (3, 'Kit', 1, 'Bob')");
  const bytes = db.export();
  db.close();
  return bytes;
}

/** Spider's layout under a top folder: database/zoo/zoo.sqlite and a dev.json of three questions (one fails). */
async function spiderFiles(): Promise<Record<string, Uint8Array>> {
  const dev = [
    { db_id: 'zoo', question: 'How many pets are there?', query: 'SELECT count(*) FROM pets' },
    { db_id: 'zoo', question: 'Names of the pets of Ann.', query: "SELECT name FROM pets WHERE owner = 'Ann'" },
    { db_id: 'zoo', question: 'A query that fails.', query: 'SELECT nothing FROM pets' },
  ];
  return { 'tiny_spider/dev.json': new TextEncoder().encode(JSON.stringify(dev)), 'tiny_spider/database/zoo/zoo.sqlite': await zooDatabase() };
}

const datasetPicker = (page: Page): Locator => page.getByRole('combobox', { name: 'Dataset' });
const card = (page: Page, name: string): Locator => page.getByRole('article', { name, exact: true });

/** Opens the Data view and waits until every bundle built with the app is in the header's picker. */
async function openData(page: Page): Promise<void> {
  const index = (await (await page.request.get('bundles/index.json')).json()) as { bundles: string[] };
  await openView(page, '#/data');
  for (const name of index.bundles) await expect(card(page, name).getByRole('table', { name: 'Questions by split and difficulty' })).toBeVisible();
  await expect(datasetPicker(page).getByRole('option')).toHaveCount(index.bundles.length);
}

async function noSidewaysScroll(page: Page): Promise<void> {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow, 'the narrow layout scrolls sideways').toBeLessThanOrEqual(1);
}

test('the Data view shows the demo dataset with its counts by split and difficulty', async ({ page, shot }) => {
  const manifest = (await (await page.request.get('bundles/demo/manifest.json')).json()) as DatasetManifest;
  await openView(page, '#/data');
  const demo = card(page, 'demo');
  await expect(demo.getByRole('heading', { name: 'demo' })).toBeVisible();
  await expect(demo).toContainText('built with the app');
  await expect(demo.locator('dl').getByRole('definition').nth(0)).toHaveText(String(manifest.databases.length));
  await expect(demo.locator('dl').getByRole('definition').nth(1)).toHaveText(String(manifest.questions.length));

  const table = demo.getByRole('table', { name: 'Questions by split and difficulty' });
  for (const split of ['train', 'eval'] as const) {
    const inSplit = manifest.questions.filter((q) => q.split === split);
    const row = table.getByRole('row', { name: new RegExp(`^${split}\\b`) });
    const cells = ['easy', 'medium', 'hard', 'extra'].map((d) => String(inSplit.filter((q) => q.difficulty === d).length));
    await expect(row.getByRole('cell')).toHaveText([...cells, String(inSplit.length)]);
  }
  await expect(table.getByRole('row', { name: /^all\b/ }).getByRole('cell').last()).toHaveText(String(manifest.questions.length));

  await demo.getByText(/^Databases \(\d+\) and their questions$/).click();
  for (const db of manifest.databases) {
    const row = demo.getByRole('row', { name: new RegExp(`^${db.id}\\b`) });
    await expect(row.getByRole('cell').last()).toHaveText(String(manifest.questions.filter((q) => q.dbId === db.id).length));
  }
  await expect(page.getByText('There is no question and no gold answer, so there is no correctness reward')).toBeVisible();
  await shot('data-demo-light');

  await page.getByRole('combobox', { name: 'Theme' }).selectOption('dark');
  await shot('data-demo-dark');
  await page.setViewportSize({ width: 400, height: 900 });
  await noSidewaysScroll(page);
  await shot('data-demo-narrow-dark');
});

test('importing a Spider-layout zip, playing one of its questions, keeping it across a reload, removing it', async ({ page, shot }) => {
  test.setTimeout(90_000);
  const zip = zipSync(await spiderFiles());
  await openData(page);
  await expect(card(page, 'demo')).toBeVisible();

  await page.getByLabel('Choose a Spider zip').setInputFiles({ name: 'tiny-spider.zip', mimeType: 'application/zip', buffer: Buffer.from(zip) });
  const name = page.getByRole('textbox', { name: 'Dataset name' });
  await expect(name).toHaveValue('tiny-spider');
  await name.fill('demo');
  await expect(page.getByText("'demo' is the name of a dataset built with the app")).toBeVisible();
  await expect(page.getByRole('button', { name: 'Import', exact: true })).toBeDisabled();
  await name.fill('zoo-spider');
  await page.getByRole('button', { name: 'Import', exact: true }).click();

  const result = page.getByRole('status').filter({ hasText: 'Imported zoo-spider' });
  await expect(result).toContainText('Imported zoo-spider: 2 questions on 1 database');
  await expect(result).toContainText('3 questions read, 1 left out (gold SQL fails: 1)');
  await expect(datasetPicker(page).getByRole('option', { name: 'zoo-spider' })).toHaveCount(1);
  const imported = card(page, 'zoo-spider');
  await expect(imported).toContainText('imported Spider');
  await expect(imported).toContainText("Imported in this browser from 'tiny-spider.zip: tiny_spider'");
  await expect(imported).toContainText('CC BY-SA 4.0');
  await shot('data-spider-imported');

  // Play it: the result's link opens the Play view on the new dataset.
  await result.getByRole('link', { name: 'Play zoo-spider' }).click();
  await expect(page).toHaveURL(/#\/play\?dataset=zoo-spider/);
  await expect(datasetPicker(page)).toHaveValue('zoo-spider');
  await expect(page.getByRole('region', { name: 'Question' })).toContainText('zoo');
  // A question by its id, solved by hand.
  await page.goto('./#/play?dataset=zoo-spider&q=dev-0000&seed=1');
  await expect(page.getByRole('region', { name: 'Question' })).toContainText('How many pets are there?');
  await page.getByRole('radio', { name: 'pets', exact: true }).check();
  await page.getByRole('button', { name: 'Describe', exact: true }).click();
  await expect(transcriptSteps(page)).toHaveCount(1);
  await typeSql(page, 'SELECT count(*) FROM pets');
  await page.getByRole('button', { name: 'Query', exact: true }).click();
  await expect(transcriptSteps(page).nth(1).getByRole('cell', { name: '3', exact: true })).toBeVisible();
  await page.getByRole('textbox', { name: 'Answer' }).fill('3');
  await page.getByRole('button', { name: 'Answer', exact: true }).click();
  await expect(page.getByRole('status', { name: 'Episode result' })).toContainText('Success: the answer is correct');
  await shot('data-spider-played');

  // A reload keeps it: in the picker, in the Data view, playable by link.
  await page.reload();
  await expect(page.getByRole('region', { name: 'Question' })).toContainText('How many pets are there?');
  await expect(datasetPicker(page)).toHaveValue('zoo-spider');
  await openView(page, '#/data');
  await expect(card(page, 'zoo-spider').getByRole('table', { name: 'Questions by split and difficulty' }).getByRole('row', { name: /^heldout\b/ })).toBeVisible();

  // Removing it asks first, then forgets it everywhere; the header falls back to the demo.
  await card(page, 'zoo-spider').getByRole('button', { name: 'Remove zoo-spider' }).click();
  await card(page, 'zoo-spider').getByRole('button', { name: 'Yes, remove zoo-spider' }).click();
  await expect(card(page, 'zoo-spider')).toHaveCount(0);
  await expect(datasetPicker(page).getByRole('option', { name: 'zoo-spider' })).toHaveCount(0);
  await expect(datasetPicker(page)).toHaveValue('demo');
  await page.reload();
  await expect(card(page, 'demo')).toBeVisible();
  await expect(card(page, 'zoo-spider')).toHaveCount(0);
});

test('a folder in the wrong layout and a broken zip give clear messages and change nothing', async ({ page, shot }) => {
  const dir = await mkdtemp(join(tmpdir(), 'sqlenv-e2e-'));
  try {
    // A Spider-like folder without dev.json.
    await mkdir(join(dir, 'my_spider', 'database', 'zoo'), { recursive: true });
    await writeFile(join(dir, 'my_spider', 'database', 'zoo', 'zoo.sqlite'), await zooDatabase());
    await openData(page);
    const options = await datasetPicker(page).getByRole('option').allTextContents();

    await page.getByLabel('Choose a Spider folder').setInputFiles(join(dir, 'my_spider'));
    await expect(page.getByRole('textbox', { name: 'Dataset name' })).toHaveValue('my_spider');
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    const alert = page.getByRole('alert').filter({ hasText: "'my_spider' could not be imported" });
    await expect(alert).toContainText("is not in Spider's official layout: it lacks dev.json");
    await expect(alert).toContainText('Nothing was changed.');
    await shot('data-wrong-layout');
    await alert.getByRole('button', { name: 'Dismiss' }).click();

    const half = zipSync(await spiderFiles());
    await page.getByLabel('Choose a Spider zip').setInputFiles({ name: 'half.zip', mimeType: 'application/zip', buffer: Buffer.from(half.slice(0, 200)) });
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await expect(page.getByRole('alert').filter({ hasText: "'half.zip' could not be imported" })).toContainText('is not a readable zip file');
    expect(await datasetPicker(page).getByRole('option').allTextContents()).toEqual(options);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('opening a SQLite file for free play, chosen or dropped, and playing it', async ({ page, shot }) => {
  await openData(page);
  await expect(card(page, 'demo')).toBeVisible();
  await page.getByLabel('Choose a SQLite file').setInputFiles({ name: 'My Zoo.sqlite', mimeType: 'application/octet-stream', buffer: Buffer.from(await zooDatabase()) });

  // Free play has its own link: the file never becomes the app-wide dataset in the header.
  await expect(page).toHaveURL(/#\/play\?free=my-zoo/);
  await expect(datasetPicker(page)).toHaveValue('demo');
  const question = page.getByRole('region', { name: 'Question' });
  await expect(question).toContainText('Free play on My Zoo.sqlite');
  await expect(question).toContainText('no gold answer, so there is no correctness reward');
  await typeSql(page, "SELECT name FROM pets WHERE owner = 'Ann'");
  await page.getByRole('button', { name: 'Query', exact: true }).click();
  await expect(transcriptSteps(page).nth(0).getByRole('cell', { name: 'Rex', exact: true })).toBeVisible();
  await page.getByRole('textbox', { name: 'Answer' }).fill('Rex, Tom');
  await page.getByRole('button', { name: 'Answer', exact: true }).click();
  await expect(page.getByRole('status', { name: 'Episode result' })).toContainText('free play: no gold answer');
  await expect(transcriptSteps(page).nth(1).getByRole('definition').first()).toHaveText(/^±?0\.000$/);
  await shot('data-free-play');

  // Dropped on the page (the way a person drags a file from their desktop).
  await openView(page, '#/data');
  const bytes = Array.from(await zooDatabase());
  const dataTransfer = await page.evaluateHandle((data) => {
    const transfer = new DataTransfer();
    transfer.items.add(new File([new Uint8Array(data)], 'dropped.db'));
    return transfer;
  }, bytes);
  await page.getByRole('region', { name: 'SQLite file for free play' }).dispatchEvent('drop', { dataTransfer });
  await expect(page).toHaveURL(/#\/play\?free=dropped/);
  await expect(page.getByRole('region', { name: 'Question' })).toContainText('Free play on dropped.db');
  await openView(page, '#/data');
  await expect(card(page, 'dropped')).toContainText('free play');
  await expect(card(page, 'my-zoo')).toContainText('Tables: pets');
  await shot('data-free-play-cards');
});

test('a corrupt SQLite file gives a clear error and changes nothing', async ({ page, shot }) => {
  await openData(page);
  const options = await datasetPicker(page).getByRole('option').allTextContents();
  const zoo = await zooDatabase();
  const corrupt = Buffer.concat([Buffer.from(zoo.slice(0, 16)), Buffer.alloc(4096, 0x5a)]);
  await page.getByLabel('Choose a SQLite file').setInputFiles({ name: 'broken.sqlite', mimeType: 'application/octet-stream', buffer: corrupt });
  const alert = page.getByRole('alert').filter({ hasText: "'broken.sqlite' could not be opened" });
  await expect(alert).toContainText('SQLite cannot read it: the file is damaged or cut short');
  await expect(page).toHaveURL(/#\/data$/);
  expect(await datasetPicker(page).getByRole('option').allTextContents()).toEqual(options);
  await shot('data-corrupt-file');

  await page.getByLabel('Choose a SQLite file').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('not a database at all') });
  await expect(page.getByRole('alert').filter({ hasText: "'notes.txt' could not be opened" })).toContainText('is not a SQLite database');
});

if (HAS_SPIDER) {
  test('importing the Spider folder at SPIDER_DIR in the page keeps what the import script keeps', async ({ page, shot }) => {
    test.setTimeout(300_000);
    const spiderDir = process.env.SPIDER_DIR ?? '';
    const built = (await (await page.request.get('bundles/spider/manifest.json')).json()) as DatasetManifest;
    await openView(page, '#/data');
    await page.getByLabel('Choose a Spider folder').setInputFiles(spiderDir);
    await page.getByRole('textbox', { name: 'Dataset name' }).fill('spider-here');
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await expect(page.getByRole('progressbar', { name: 'Import progress' })).toBeVisible();
    await shot('data-spider-import-progress');
    const result = page.getByRole('status').filter({ hasText: 'Imported spider-here' });
    await expect(result).toContainText(`Imported spider-here: ${built.questions.length} questions on ${built.databases.length} databases`, { timeout: 240_000 });
    const imported = card(page, 'spider-here').getByRole('table', { name: 'Questions by split and difficulty' });
    const bundle = card(page, 'spider').getByRole('table', { name: 'Questions by split and difficulty' });
    expect(await imported.getByRole('row').allTextContents()).toEqual(await bundle.getByRole('row').allTextContents());
  });
}
