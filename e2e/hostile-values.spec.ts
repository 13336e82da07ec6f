/**
 * Hostile values, played the way a person plays: a query whose one cell is 20 MB of text, with clicks on the
 * table list while it runs and arrives (the page must keep answering, show the cell clipped, and not crash); and a
 * free-play database whose table name has a space, described and sampled from the buttons.
 *
 * Click latency is measured in the page: from the pointer event's own timestamp (when the browser received the
 * input) to the first animation frame where the click's effect (the picked table) shows. It is printed and
 * attached as an annotation, never asserted: timings on a shared CI machine are not a pass/fail signal. Both tests
 * ask for `pageErrors`, so an uncaught error in the page fails them.
 */
import initSqlJs from 'sql.js';
import { expect, openView, test } from './fixtures.ts';
import { button, transcriptSteps, typeSql } from './play-helpers.ts';

/**
 * Records, for every pointerdown on a table radio, the milliseconds until that radio shows as picked (checked, and
 * its row marked selected) in a painted frame. Results collect in `window.__clickLatencies`.
 */
function installLatencyProbe(): void {
  const w = window as unknown as { __clickLatencies: number[] };
  w.__clickLatencies = [];
  document.addEventListener(
    'pointerdown',
    (event) => {
      const target = event.target instanceof Element ? event.target.closest('.play-table')?.querySelector('input[type=radio]') : null;
      if (!(target instanceof HTMLInputElement)) return;
      const value = target.value;
      const t0 = event.timeStamp;
      const check = (): void => {
        const radio = Array.from(document.querySelectorAll<HTMLInputElement>('input[name="play-table"]')).find((r) => r.value === value);
        if (radio?.checked && radio.closest('.play-table')?.classList.contains('selected')) w.__clickLatencies.push(performance.now() - t0);
        else requestAnimationFrame(check);
      };
      requestAnimationFrame(check);
    },
    { capture: true },
  );
}

/**
 * A cell far over the worker's 4 KiB cell budget: reading it on the page's thread would freeze clicks for seconds.
 * Whether it also fits the environment's 2 s SQL time limit depends on the machine (a cold SQL worker in headless
 * Chromium on the 2-core machine took 1.4-2.5 s for 50 MB: sqlite's printf, sql.js's string copy, the whole-value
 * hash), so the test accepts either of the two right outcomes for it, the value clipped or the time limit stated,
 * and checks the clipped display on a 1 MB cell that always arrives. The worker's clipping of far larger values
 * (90 M, 140 M characters) is checked in Node by the hostile corpus (tests/sql), without a time limit.
 */
const BIG_CELL_CHARS = 20_000_000;
const CLIPPED_CELL_CHARS = 1_000_000;

test('the page keeps answering clicks while a 20 MB cell runs, and a clipped cell opens and copies', async ({ page, shot, pageErrors: _pageErrors }) => {
  let crashed = false;
  page.on('crash', () => (crashed = true));
  await openView(page, '#/play?dataset=demo');
  // The clicks below go to fixed points, so nothing above the table list may move: the first-visit card grows when
  // the dataset's questions arrive (its easy question), so it is closed first, as anyone past their first visit has.
  await page.getByRole('button', { name: 'Close this guide' }).click();
  await expect(page.getByRole('heading', { name: /^New here\?/ })).toHaveCount(0);
  await expect(page.getByRole('region', { name: 'Question' })).toBeVisible();
  const radios = page.getByRole('radio');
  await expect(radios.first()).toBeVisible();
  expect(await radios.count()).toBeGreaterThan(1);
  const names = [await radios.nth(0).getAttribute('value'), await radios.nth(1).getAttribute('value')] as string[];
  // Raw mouse clicks at fixed points: Playwright's actionability checks run script in the page, so a locator click
  // would wait out a frozen page before clicking and the latency would hide the freeze.
  const points = await Promise.all(
    [0, 1].map(async (i) => {
      const box = await radios.nth(i).boundingBox();
      if (!box) throw new Error(`table radio ${i} has no box`);
      return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
    }),
  );
  await page.evaluate(installLatencyProbe);

  await typeSql(page, `SELECT printf('%.*c', ${BIG_CELL_CHARS}, 'x') AS big`);
  await page.keyboard.press('ControlOrMeta+Enter');
  await expect(page.getByRole('status').filter({ hasText: 'Running QUERY' })).toBeVisible();

  // Click one table, then the other, until the step shows; each click's effect must show.
  let clicks = 0;
  while ((await transcriptSteps(page).count()) === 0 && clicks < 400) {
    const i = clicks % 2 === 0 ? 1 : 0;
    await page.mouse.click(points[i].x, points[i].y);
    clicks++;
    await expect(page.getByRole('radio', { name: names[i], exact: true })).toBeChecked();
  }
  await expect(transcriptSteps(page)).toHaveCount(1, { timeout: 30_000 });
  const measured = (): Promise<number[]> => page.evaluate(() => (window as unknown as { __clickLatencies: number[] }).__clickLatencies);
  await expect.poll(async () => (await measured()).length, 'every click measured').toBe(clicks);
  const latencies = await measured();
  const sorted = [...latencies].sort((a, b) => a - b);
  const report = `${clicks} clicks while the 20 MB cell ran: median ${sorted[Math.floor(sorted.length / 2)]?.toFixed(0)} ms, max ${sorted.at(-1)?.toFixed(0)} ms`;
  console.log(`click latency: ${report}`);
  test.info().annotations.push({ type: 'click latency', description: report });

  // One of the two right outcomes: the cell clipped (x's, then its stated length), or the time limit stated.
  const bigStep = transcriptSteps(page).nth(0);
  await expect(bigStep).toContainText(new RegExp(`${'x'.repeat(100)}|ran longer than the [\\d,]+ ms time limit`));
  const bigOutcome = (await bigStep.textContent())?.includes('time limit') ? 'stopped at the time limit' : 'arrived clipped';
  console.log(`20 MB cell: ${bigOutcome}`);
  test.info().annotations.push({ type: '20 MB cell', description: bigOutcome });

  // A 1 MB cell always arrives: it shows clipped, with its full length stated and the value behind a button.
  await typeSql(page, `SELECT printf('%.*c', ${CLIPPED_CELL_CHARS}, 'x') AS big`);
  await page.keyboard.press('ControlOrMeta+Enter');
  await expect(transcriptSteps(page)).toHaveCount(2);
  const step = transcriptSteps(page).nth(1);
  await expect(step).not.toContainText('time limit');
  const cell = step.getByRole('cell').first();
  await expect(cell).toContainText('x'.repeat(100));
  expect(((await cell.textContent()) ?? '').length).toBeLessThan(400);
  const more = cell.getByRole('button', { name: /^Show all [\d,]+ characters$/ });
  await expect(more).toBeVisible();
  await shot('hostile-big-cell');
  // Opened on demand (at most 100,000 characters in the page) and copied whole.
  await expect(cell, 'the length in the database is stated').toContainText(`${CLIPPED_CELL_CHARS.toLocaleString('en-US')} characters in the database`);
  await more.click();
  await expect(cell.getByRole('button', { name: 'Show less' })).toHaveAttribute('aria-expanded', 'true');
  await cell.getByRole('button', { name: 'Copy', exact: true }).click();
  await expect(cell.getByRole('status')).toHaveText(/^Copied$|^Copy failed/);
  await cell.getByRole('button', { name: 'Show less' }).click();

  // The page still works: another step runs.
  await button(page, 'Describe').click();
  await expect(transcriptSteps(page)).toHaveCount(3);
  await expect(transcriptSteps(page).nth(2).getByRole('table')).toBeVisible();
  expect(crashed, 'the tab crashed').toBe(false);
});

/** A free-play database whose table name has a space (and a value that looks like a formula). */
async function spacedDatabase(): Promise<Uint8Array> {
  const SQL = await initSqlJs();
  const db = new SQL.Database();
  db.run('CREATE TABLE "my pets" (id INTEGER PRIMARY KEY, "pet name" TEXT)');
  db.run(`INSERT INTO "my pets" VALUES (1, 'Rex'), (2, '=1+1'), (3, '<b>bold</b>')`);
  const bytes = db.export();
  db.close();
  return bytes;
}

test('a free-play table whose name has a space is described and sampled from the buttons', async ({ page, pageErrors: _pageErrors }) => {
  await openView(page, '#/data');
  await page.getByLabel('Choose a SQLite file').setInputFiles({ name: 'spaced.sqlite', mimeType: 'application/octet-stream', buffer: Buffer.from(await spacedDatabase()) });
  await expect(page.getByRole('region', { name: 'Question' })).toContainText('Free play on spaced.sqlite');
  await expect(page.getByRole('radio', { name: 'my pets', exact: true })).toBeChecked();

  await button(page, 'Describe').click();
  await expect(transcriptSteps(page)).toHaveCount(1);
  await expect(transcriptSteps(page).nth(0)).toContainText('DESCRIBE "my pets"');
  await expect(transcriptSteps(page).nth(0).getByRole('cell', { name: 'pet name', exact: true })).toBeVisible();

  await button(page, 'Sample').click();
  await expect(transcriptSteps(page)).toHaveCount(2);
  const sample = transcriptSteps(page).nth(1);
  await expect(sample.getByRole('cell', { name: 'Rex', exact: true })).toBeVisible();
  // Database content is text, never markup.
  await expect(sample.getByRole('cell', { name: '<b>bold</b>', exact: true })).toBeVisible();
  await expect(page.getByRole('radio', { name: 'my pets', exact: true })).toHaveAccessibleDescription('described, sampled');
});
