/**
 * `npm run data:split-report` (or `npx tsx scripts/split-report.ts [--dataset spider|demo] [--spider DIR]`): what the
 * current split rule (src/data/split.ts: lenient answers and paraphrases) moved relative to the previous one
 * (strict result keys, no paraphrases) — question ids train → eval and eval → train, counts per database, each
 * changed group with the links that joined it, every pair of questions the paraphrase rule joins — then the new
 * per-split and per-database tables (as `npm run data:spider` prints them) and how many gold results hit the
 * answer keys' cap (src/data/answer-key.ts). Spider comes from --spider, else SPIDER_DIR; nothing is written.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import initSqlJs from 'sql.js';
import { resultKeys } from '../src/data/answer-key.ts';
import { buildDemoDataset, DEMO_CURATED } from '../src/data/demo/build.ts';
import { formatImportReport, importSpider } from '../src/data/spider.ts';
import { CURATED_DATABASES, TRAIN_PERCENT, splitGroups } from '../src/data/split.ts';
import { formatSplitDiff, splitDiff, type DiffInput } from '../src/data/split-diff.ts';
import type { Question } from '../src/data/types.ts';
import { createNodeSqlExecutor } from '../src/sql/node-worker.ts';

const USAGE = 'usage: npx tsx scripts/split-report.ts [--dataset spider|demo] [--spider DIR]   (Spider from --spider or SPIDER_DIR)';
const GOLD_TIMEOUT_MS = 20_000;

function fail(message: string): never {
  process.stderr.write(`split-report: ${message}\n${USAGE}\n`);
  process.exit(1);
}

async function load(dataset: string, spiderDir: string | undefined): Promise<{ questions: Question[]; curated: readonly string[]; tables: string }> {
  if (dataset === 'demo') {
    const demo = await buildDemoDataset({ sqlJs: await initSqlJs() });
    return { questions: demo.questions, curated: DEMO_CURATED, tables: '' };
  }
  if (!spiderDir) fail("SPIDER_DIR is not set and no --spider DIR was given (e.g. SPIDER_DIR=../shared/spider).");
  const executor = createNodeSqlExecutor({ limits: { timeoutMs: GOLD_TIMEOUT_MS } });
  try {
    const { dataset: spider, report } = await importSpider(resolve(spiderDir), executor);
    return { questions: spider.questions, curated: CURATED_DATABASES, tables: formatImportReport(report) };
  } finally {
    await executor.close();
  }
}

async function main(): Promise<void> {
  let values: { dataset?: string; spider?: string; help?: boolean };
  try {
    ({ values } = parseArgs({ options: { dataset: { type: 'string' }, spider: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, strict: true }));
  } catch (e) {
    fail((e as Error).message);
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const dataset = values.dataset ?? 'spider';
  if (dataset !== 'spider' && dataset !== 'demo') fail(`--dataset must be spider or demo, not '${dataset}'`);
  const { questions, curated, tables } = await load(dataset, values.spider ?? process.env.SPIDER_DIR);

  const inputs: DiffInput[] = questions.map((q) => ({ id: q.id, dbId: q.dbId, question: q.question, gold: q.gold, goldRows: q.goldResult.rows, ...(q.goldTies && { goldTies: q.goldTies }) }));
  const text = new Map(questions.map((q) => [q.id, q.question]));
  const started = performance.now();
  const groups = splitGroups(inputs, curated);
  const groupMs = performance.now() - started;
  const split = new Map(questions.map((q) => [q.id, q.split]));
  const trainGroups = groups.filter((g) => split.get(inputs[g[0]].id) === 'train').length;
  const capped = inputs.filter((q) => resultKeys(q.goldRows).capped).length;
  const maxKeys = Math.max(0, ...inputs.map((q) => resultKeys(q.goldRows).keys.length));

  const lines = [
    `Split report (${dataset}): ${questions.length} questions, current rule vs previous rule (strict result keys, no paraphrases).`,
    `grouping took ${groupMs.toFixed(0)} ms; ${trainGroups} of ${groups.length} groups in train (${((100 * trainGroups) / Math.max(1, groups.length)).toFixed(1)}%, target ~${TRAIN_PERCENT}%)`,
    `answer keys: at most ${maxKeys} per gold result; ${capped} results capped (see src/data/answer-key.ts)`,
    '',
    formatSplitDiff(splitDiff(inputs, curated), (id) => text.get(id) ?? ''),
  ];
  if (tables !== '') lines.push('', 'The new tables (as npm run data:spider prints them):', '', tables);
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((e: unknown) => fail(e instanceof Error ? e.message : String(e)));
