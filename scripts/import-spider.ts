/**
 * `npm run data:spider` (or `npx tsx scripts/import-spider.ts [--spider DIR] [--out DIR]`): imports a folder in
 * Spider's official layout (from --spider, else SPIDER_DIR) into the app's data bundle, by default
 * `public/bundles/spider` (gitignored: Spider is never committed). Prints the import report (counts per split,
 * difficulty and database, how many questions the grouped split moved relative to the SQL-only rule, skips by
 * reason) on stdout and a progress line on stderr; exits 1 with a clear message
 * when the folder is not given or is not in Spider's layout.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createProgress } from '../src/cli/progress.ts';
import { DatasetError } from '../src/data/bundle.ts';
import { writeBundleFolder } from '../src/data/bundle-node.ts';
import { formatImportReport, importSpider } from '../src/data/spider.ts';
import { createNodeSqlExecutor } from '../src/sql/node-worker.ts';

const USAGE = 'usage: npx tsx scripts/import-spider.ts [--spider DIR] [--out DIR]   (or SPIDER_DIR=DIR npm run data:spider)';
const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Gold queries are trusted but some are slow on big databases; a generous limit still stops a runaway one. */
const GOLD_TIMEOUT_MS = 20_000;

function fail(message: string): never {
  process.stderr.write(`import-spider: ${message}\n${USAGE}\n`);
  process.exit(1);
}

async function main(): Promise<void> {
  let values: { spider?: string; out?: string; help?: boolean };
  try {
    ({ values } = parseArgs({ options: { spider: { type: 'string' }, out: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, strict: true }));
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

  const executor = createNodeSqlExecutor({ limits: { timeoutMs: GOLD_TIMEOUT_MS } });
  const progress = createProgress('importing Spider questions');
  try {
    const { dataset, report } = await importSpider(resolve(spiderDir), executor, { onProgress: (done, total) => progress.update(done, total) });
    progress.finish();
    await writeBundleFolder(outDir, dataset);
    process.stdout.write(`${formatImportReport(report)}\n\nWrote ${dataset.questions.length} questions and ${dataset.databases.length} databases to ${outDir}\n`);
  } catch (e) {
    progress.finish();
    if (e instanceof DatasetError) fail(e.message);
    throw e;
  } finally {
    await executor.close();
  }
}

await main();
