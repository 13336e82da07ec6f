/**
 * Free play in a context of its own, and the imported Spider's name (issue 12, items 7 and 8). Opening a SQLite file
 * must not change the dataset Train, Evaluate and Watch use; the free-play episode shows no difficulty, split or
 * question count (a file has none); the nav link returns to it and "Back to demo" leaves it. An imported Spider is
 * called "spider" unless the build bundles one (bundles/index.json says). Files are made here with sql.js and fflate.
 */
import type { Page } from '@playwright/test';
import { zipSync } from 'fflate';
import initSqlJs from 'sql.js';
import { expect, openView, test } from './fixtures.ts';
import { transcriptSteps, typeSql } from './play-helpers.ts';

async function zooDatabase(): Promise<Uint8Array> {
  const SQL = await initSqlJs();
  const db = new SQL.Database();
  db.run('CREATE TABLE pets (id INTEGER PRIMARY KEY, name TEXT, age INTEGER)');
  db.run("INSERT INTO pets VALUES (1, 'Rex', 3), (2, 'Tom', 5)");
  const bytes = db.export();
  db.close();
  return bytes;
}

const datasetPicker = (page: Page) => page.getByRole('combobox', { name: 'Dataset' });

/** A one-question Spider zip (dev.json + one database), in the official layout. */
async function tinySpiderZip(): Promise<Uint8Array> {
  const dev = [{ db_id: 'zoo', question: 'How many pets are there?', query: 'SELECT count(*) FROM pets' }];
  return zipSync({ 'spider/dev.json': new TextEncoder().encode(JSON.stringify(dev)), 'spider/database/zoo/zoo.sqlite': await zooDatabase() });
}

/** The name an import of Spider gets on this build: "spider", or "spider-2" when the build bundles one. */
async function expectedSpiderName(page: Page): Promise<string> {
  const { bundles } = (await (await page.request.get('bundles/index.json')).json()) as { bundles: string[] };
  return bundles.includes('spider') ? 'spider-2' : 'spider';
}

/** Imports the tiny Spider zip from the Data view under its proposed name. */
async function importTinySpider(page: Page, name: string): Promise<void> {
  await openView(page, '#/data');
  await page.getByLabel('Choose a Spider zip').setInputFiles({ name: 'spider.zip', mimeType: 'application/zip', buffer: Buffer.from(await tinySpiderZip()) });
  await expect(page.getByRole('textbox', { name: 'Dataset name' })).toHaveValue(name);
  await expect(page.getByRole('button', { name: 'Import', exact: true })).toBeEnabled();
  await page.getByRole('button', { name: 'Import', exact: true }).click();
  await expect(page.getByRole('status').filter({ hasText: `Imported ${name}:` })).toContainText('1 question on 1 database');
}

test('a file opened for free play keeps its own context: Train, Evaluate and Watch still use the demo', async ({ page, shot }) => {
  await openView(page, '#/data');
  await expect(datasetPicker(page)).toHaveValue('demo');
  await page.getByLabel('Choose a SQLite file').setInputFiles({ name: 'Pets.sqlite', mimeType: 'application/octet-stream', buffer: Buffer.from(await zooDatabase()) });

  await expect(page).toHaveURL(/#\/play\?free=pets/);
  const card = page.getByRole('region', { name: 'Question' });
  await expect(card).toContainText('Free play on Pets.sqlite');
  await expect(card).not.toContainText('difficulty');
  await expect(card).not.toContainText('split');
  await expect(page.getByRole('heading', { name: 'Free play on pets' })).toBeVisible();
  await expect(page.getByText(/\b1 questions?\b/)).toHaveCount(0);
  await expect(page.getByRole('combobox', { name: 'Split' })).toHaveCount(0);
  // The header keeps the app-wide dataset, and does not offer the file.
  await expect(datasetPicker(page)).toHaveValue('demo');
  await expect(datasetPicker(page).getByRole('option', { name: 'pets' })).toHaveCount(0);
  await typeSql(page, 'SELECT name FROM pets');
  await page.getByRole('button', { name: 'Query', exact: true }).click();
  await expect(transcriptSteps(page)).toHaveCount(1);
  await page.getByRole('textbox', { name: 'Answer' }).fill('Rex');
  await page.getByRole('textbox', { name: 'Answer' }).press('Enter');
  await expect(transcriptSteps(page).last().locator('.step-head .badge')).toHaveText('noted');
  await shot('free-play-own-context');

  await openView(page, '#/train');
  await expect(page.getByText(/Dataset demo \(change it in the header\)/)).toBeVisible();
  await openView(page, '#/evaluate');
  await expect(page.getByText(/Dataset demo \(change it in the header\)/)).toBeVisible();

  // The nav link comes back to the free-play episode; "Back to demo" leaves it for a demo question.
  await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Play' }).click();
  await expect(page).toHaveURL(/#\/play\?free=pets/);
  await expect(card).toContainText('Free play on Pets.sqlite');
  await page.getByRole('link', { name: 'Back to demo' }).click();
  await expect(page).toHaveURL(/#\/play\?dataset=demo&q=/);
  await expect(card).toContainText('difficulty');
  await expect(datasetPicker(page)).toHaveValue('demo');

  // After a reload the free-play link still opens the file, and the header is still the demo.
  await page.goto('./#/play?free=pets');
  await expect(card).toContainText('Free play on Pets.sqlite');
  await expect(datasetPicker(page)).toHaveValue('demo');
});

test('an imported Spider is called "spider" unless the build bundles one', async ({ page }) => {
  const { bundles } = (await (await page.request.get('bundles/index.json')).json()) as { bundles: string[] };
  const expected = await expectedSpiderName(page);
  await openView(page, '#/data');
  for (const name of bundles) await expect(datasetPicker(page).getByRole('option', { name, exact: true })).toHaveCount(1);
  await importTinySpider(page, expected);
  await expect(datasetPicker(page).getByRole('option', { name: expected, exact: true })).toHaveCount(1);
});

test("choosing a dataset in the header during free play leaves free play for that dataset", async ({ page }) => {
  // A second dataset for the header, whatever the build bundles.
  const other = await expectedSpiderName(page);
  await importTinySpider(page, other);
  await page.getByLabel('Choose a SQLite file').setInputFiles({ name: 'Pets.sqlite', mimeType: 'application/octet-stream', buffer: Buffer.from(await zooDatabase()) });
  await expect(page).toHaveURL(/#\/play\?free=pets&q=/);
  await expect(page.getByRole('region', { name: 'Question' })).toContainText('Free play on Pets.sqlite');
  await expect(datasetPicker(page).getByRole('option', { name: other, exact: true })).toHaveCount(1);
  await datasetPicker(page).selectOption(other);
  await expect(page).toHaveURL(new RegExp(`#/play\\?dataset=${other}&q=`));
  await expect(page.getByRole('region', { name: 'Question' })).toContainText('difficulty');
});
