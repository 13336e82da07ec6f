/**
 * Shared e2e fixtures: every test fails on an uncaught page error, and `shot(name)` saves a full-page screenshot
 * to e2e-artifacts/ (kept as a test artifact).
 */
import { test as base, expect, type Page } from '@playwright/test';

export const test = base.extend<{ pageErrors: string[]; shot: (name: string) => Promise<void> }>({
  pageErrors: async ({ page }, use) => {
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await use(errors);
    expect(errors, 'uncaught errors in the page').toEqual([]);
  },
  shot: async ({ page }, use) => {
    await use(async (name) => {
      await page.screenshot({ path: `e2e-artifacts/${name}.png`, fullPage: true });
    });
  },
});

export { expect };

/** Opens the app at a hash route and waits until the view's dataset has loaded. */
export async function openView(page: Page, hash: string): Promise<void> {
  await page.goto(`./${hash}`);
  await expect(page.getByRole('navigation', { name: 'Views' })).toBeVisible();
}

/** Whether the Spider bundle was built for this run (SPIDER_DIR set at build time). */
export const HAS_SPIDER = Boolean(process.env.SPIDER_DIR);
