/**
 * `npm run data:spider` (or `npx tsx scripts/import-spider.ts [--spider DIR] [--out DIR] [--budget-s S]
 * [--query-timeout-s S]`): imports a folder in
 * Spider's official layout (from --spider, else SPIDER_DIR) into the app's data bundle, by default
 * `public/bundles/spider` (gitignored: Spider is never committed). Prints the import report (counts per split,
 * difficulty and database, how many questions the grouped split moved relative to the SQL-only rule, skips by
 * reason) on stdout and a progress line on stderr; exits 1 with a clear message
 * when the folder is not given or is not in Spider's layout. The time budget (spider-budget.ts: 15 min in all, 20 s
 * per gold query by default) skips what runs over it, and the report says how many; names from the folder are
 * printed escaped (printable.ts), so a db_id holding a terminal escape cannot steer the terminal.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createProgress } from '../src/cli/progress.ts';
import { DatasetError } from '../src/data/bundle.ts';
import { writeBundleFolder } from '../src/data/bundle-node.ts';
import { printable } from '../src/data/printable.ts';
import { formatImportReport, importSpider } from '../src/data/spider.ts';
import { DEFAULT_IMPORT_BUDGET, type ImportBudget } from '../src/data/spider-budget.ts';
import { createNodeSqlExecutor } from '../src/sql/node-worker.ts';

const USAGE = `usage: npx tsx scripts/import-spider.ts [--spider DIR] [--out DIR] [--budget-s ${DEFAULT_IMPORT_BUDGET.totalMs / 1000}] [--query-timeout-s ${DEFAULT_IMPORT_BUDGET.queryMs / 1000}]   (or SPIDER_DIR=DIR npm run data:spider)`;
const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

function fail(message: string): never {
  process.stderr.write(`import-spider: ${message}\n${USAGE}\n`);
  process.exit(1);
}

/** A positive number of seconds from a flag, in ms; the default when the flag is absent. */
function secondsFlag(name: string, value: string | undefined, defaultMs: number): number {
  if (value === undefined) return defaultMs;
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0) fail(`--${name} must be a positive number of seconds, not '${printable(value)}'.`);
  return seconds * 1000;
}

async function main(): Promise<void> {
  let values: { spider?: string; out?: string; 'budget-s'?: string; 'query-timeout-s'?: string; help?: boolean };
  try {
    const options = { spider: { type: 'string' }, out: { type: 'string' }, 'budget-s': { type: 'string' }, 'query-timeout-s': { type: 'string' }, help: { type: 'boolean', short: 'h' } } as const;
    ({ values } = parseArgs({ options, strict: true }));
  } catch (e) {
    fail((e as Error).message);
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const spiderDir = values.spider ?? process.env.SPIDER_DIR;
  if (!spiderDir) fail("SPIDER_DIR is not set and no --spider DIR was given: point it at a folder in Spider's official layout (database/<db>/<db>.sqlite, dev.json), e.g. SPIDER_DIR=../shared/spider.");
  const outDir = values.out ? resolve(values.out) : resolve(REPO_ROOT, 'public/bundles/spider');

  const budget: ImportBudget = {
    totalMs: secondsFlag('budget-s', values['budget-s'], DEFAULT_IMPORT_BUDGET.totalMs),
    queryMs: secondsFlag('query-timeout-s', values['query-timeout-s'], DEFAULT_IMPORT_BUDGET.queryMs),
  };

  const executor = createNodeSqlExecutor({ limits: { timeoutMs: budget.queryMs } });
  const progress = createProgress('importing Spider questions');
  try {
    const { dataset, report } = await importSpider(resolve(spiderDir), executor, { budget, onProgress: (done, total) => progress.update(done, total) });
    progress.finish();
    if (dataset.questions.length === 0) {
      // Writing would replace whatever bundle is there with an empty one.
      process.stdout.write(`${formatImportReport(report)}\n`);
      fail(`no question could be kept, so nothing was written to ${printable(outDir)}.`);
    }
    await writeBundleFolder(outDir, dataset);
    process.stdout.write(`${formatImportReport(report)}\n\nWrote ${dataset.questions.length} questions and ${dataset.databases.length} databases to ${printable(outDir)}\n`);
  } catch (e) {
    progress.finish();
    if (e instanceof DatasetError) fail(e.message);
    throw e;
  } finally {
    await executor.close();
  }
}

await main();
