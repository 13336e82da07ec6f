/**
 * "Database content and model text are always rendered as text" (docs/app.md), with script payloads: markup in a
 * free-play database (a table name, a column name, cells) shown by Describe, Sample and Query in Play's tables and
 * transcript, and markup in a run file's transcript (the question, the action, the observation: model text) shown
 * by Compare. Each payload is an element that runs script as soon as it is parsed (`<img src=x onerror>`,
 * `<svg onload>`) and would record itself in `window.__xss`; the test asserts that none ran, that no element
 * carries an event-handler attribute, and that each payload is shown as its own characters. Rendering any of these
 * places with `innerHTML` (or `dangerouslySetInnerHTML`) fails both checks.
 */
import type { Page } from '@playwright/test';
import initSqlJs from 'sql.js';
import { ENV_VERSION } from '../src/env/env.ts';
import { toRunFile } from '../src/eval/run-file.ts';
import type { EpisodeRecord } from '../src/eval/transcript.ts';
import { expect, openView, test } from './fixtures.ts';
import { button, transcriptSteps, typeSql } from './play-helpers.ts';

/** A payload that, parsed as HTML, runs `window.__xss.push(tag)`. */
const img = (tag: string) => `<img src=x onerror="window.__xss.push('${tag}')">`;
const svg = (tag: string) => `<svg onload="window.__xss.push('${tag}')">`;

const TABLE = img('table');
const COLUMN = svg('column');
const CELLS = [img('cell'), svg('cell'), `<script>window.__xss.push('script')</script>`];

async function hostileDatabase(): Promise<Uint8Array> {
  const SQL = await initSqlJs();
  const db = new SQL.Database();
  const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;
  db.run(`CREATE TABLE ${quote(TABLE)} (id INTEGER PRIMARY KEY, ${quote(COLUMN)} TEXT)`);
  const insert = db.prepare(`INSERT INTO ${quote(TABLE)} VALUES (?, ?)`);
  CELLS.forEach((cell, i) => insert.run([i + 1, cell]));
  insert.free();
  const bytes = db.export();
  db.close();
  return bytes;
}

/** Before any page script: the list every payload would push to. */
async function watchForScript(page: Page): Promise<void> {
  await page.addInitScript(() => {
    (window as unknown as { __xss: string[] }).__xss = [];
  });
}

/** No payload ran and none became an element: nothing in the document has an inline event handler. */
async function expectNoMarkupRan(page: Page): Promise<void> {
  const seen = await page.evaluate(() => ({
    ran: (window as unknown as { __xss: string[] }).__xss,
    handlers: Array.from(document.querySelectorAll('*')).filter((e) => Array.from(e.attributes).some((a) => a.name.startsWith('on'))).map((e) => e.outerHTML.slice(0, 80)),
    images: document.querySelectorAll('img[src="x"]').length,
  }));
  expect(seen).toEqual({ ran: [], handlers: [], images: 0 });
}

test('markup in a database is shown as text in Play: table and column names, cells, the query echoed', async ({ page, pageErrors: _pageErrors }) => {
  await watchForScript(page);
  await openView(page, '#/data');
  await page.getByLabel('Choose a SQLite file').setInputFiles({ name: 'markup.sqlite', mimeType: 'application/octet-stream', buffer: Buffer.from(await hostileDatabase()) });
  await expect(page.getByRole('region', { name: 'Question' })).toContainText('Free play on markup.sqlite');
  await expect(page.getByRole('radio', { name: TABLE, exact: true })).toBeChecked();

  await button(page, 'Describe').click();
  await expect(transcriptSteps(page)).toHaveCount(1);
  await expect(transcriptSteps(page).nth(0).getByRole('cell', { name: COLUMN, exact: true })).toBeVisible();

  await button(page, 'Sample').click();
  await expect(transcriptSteps(page)).toHaveCount(2);
  for (const cell of CELLS) await expect(transcriptSteps(page).nth(1).getByRole('cell', { name: cell, exact: true })).toBeVisible();
  await expect(transcriptSteps(page).nth(1).getByRole('columnheader', { name: COLUMN, exact: true })).toBeVisible();

  // Markup typed into the query: echoed in the transcript, and back from SQLite as a column name.
  const alias = img('alias');
  const quoted = `"${alias.replaceAll('"', '""')}"`; // an SQL identifier: its own double quotes doubled
  await typeSql(page, `SELECT 1 AS ${quoted}`);
  await page.keyboard.press('ControlOrMeta+Enter');
  await expect(transcriptSteps(page)).toHaveCount(3);
  await expect(transcriptSteps(page).nth(2)).toContainText(`SELECT 1 AS ${quoted}`);
  await expect(transcriptSteps(page).nth(2).getByRole('columnheader', { name: alias, exact: true })).toBeVisible();
  await expectNoMarkupRan(page);
});

/** One episode whose question, action and observation carry payloads, as a model's text would. */
function markupEpisode(policy: string, success: boolean): EpisodeRecord {
  const answer = img(`answer-${policy}`);
  const step = {
    action: { type: 'ANSWER' as const, value: answer },
    actionText: `ANSWER ${answer}`,
    observation: `> ANSWER ${answer}\n${svg(`observation-${policy}`)}`,
    reward: success ? 1 : -0.01,
    components: { correctness: success ? 1 : 0, progress: 0, operational: -0.01 },
    outcome: 'ok' as const,
    episodeReturn: success ? 1 : -0.01,
  };
  return {
    policy,
    dataset: 'demo',
    questionId: 'q-markup',
    dbId: 'library',
    question: `Which shelf? ${img('question')}`,
    difficulty: 'easy',
    split: 'eval',
    seed: 0,
    success,
    episodeReturn: step.reward,
    components: step.components,
    steps: 1,
    terminated: true,
    truncated: false,
    transcript: [step],
  };
}

function runFile(id: string, policy: string, success: boolean): string {
  return toRunFile({ envVersion: ENV_VERSION, id, dataset: 'demo', split: 'eval', policy, model: null, adapter: null, seed: 0, settings: {}, createdAt: 1_700_000_000_000 + (success ? 1 : 0), durationMs: 1, writer: 'e2e' }, [markupEpisode(policy, success)]);
}

test("markup in a run file's transcripts is shown as text in Compare", async ({ page, pageErrors: _pageErrors }) => {
  await watchForScript(page);
  await openView(page, '#/compare');
  await page.getByLabel('Import run files…').setInputFiles([
    { name: 'a.jsonl', mimeType: 'application/x-ndjson', buffer: Buffer.from(runFile('run-a', 'a', false)) },
    { name: 'b.jsonl', mimeType: 'application/x-ndjson', buffer: Buffer.from(runFile('run-b', 'b', true)) },
  ]);
  await expect(page.getByRole('combobox', { name: 'Run B' })).toHaveValue('run-b');
  const question = `Which shelf? ${img('question')}`;
  await page.getByRole('button', { name: `Compare transcripts: ${question}` }).click();
  await expect(page.getByRole('heading', { name: question })).toBeVisible();
  for (const policy of ['a', 'b']) {
    await expect(page.getByText(`ANSWER ${img(`answer-${policy}`)}`).first()).toBeVisible();
    await expect(page.getByText(svg(`observation-${policy}`)).first()).toBeVisible();
  }
  await expectNoMarkupRan(page);
});
