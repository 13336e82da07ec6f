/**
 * `npm run eval:near-miss` (or `npx tsx scripts/near-miss.ts [--seed S]`): runs the labelled near-miss corpus
 * (src/eval/near-miss.ts) against the lenient ANSWER verifier on the demo dataset and, when SPIDER_DIR is set, on
 * every kept Spider question, and prints per kind how many answers were generated and accepted, then the analysis
 * of the numbers in the gold results that justifies the verifier's number rule. Exits 1 when the verifier rejects a
 * right answer or accepts a near miss, listing the first few.
 */
import { parseArgs } from 'node:util';
import { buildDemoDataset } from '../src/data/demo/build.ts';
import { importSpider } from '../src/data/spider.ts';
import type { Question } from '../src/data/types.ts';
import { formatCorpusReport, formatGoldNumberReport, goldNumberReport, NEAR_MISS_SEED, runNearMissCorpus } from '../src/eval/near-miss.ts';
import { createNodeSqlExecutor } from '../src/sql/node-worker.ts';

const USAGE = 'usage: npx tsx scripts/near-miss.ts [--seed S]   (SPIDER_DIR=DIR adds Spider)';

function run(name: string, questions: readonly Question[], seed: number): boolean {
  const report = runNearMissCorpus(questions, seed);
  process.stdout.write(`${formatCorpusReport(report, name)}\n`);
  for (const m of report.mistakes.slice(0, 10)) process.stdout.write(`  ${m.label} ${m.kind} ${m.questionId}: ${JSON.stringify(m.text.slice(0, 200))}\n`);
  process.stdout.write(`\n${formatGoldNumberReport(goldNumberReport(questions), `${name} gold numbers`)}\n\n`);
  return report.mistakes.length === 0;
}

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { seed: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, strict: true });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const seed = values.seed === undefined ? NEAR_MISS_SEED : Number(values.seed);
  if (!Number.isInteger(seed)) {
    process.stderr.write(`near-miss: --seed must be an integer, got '${values.seed}'.\n${USAGE}\n`);
    return 1;
  }
  process.stdout.write(`near-miss corpus, seed ${seed}\n\n`);
  let ok = run('demo', (await buildDemoDataset()).questions, seed);
  const spiderDir = process.env.SPIDER_DIR;
  if (!spiderDir) {
    process.stdout.write('SPIDER_DIR is not set: Spider skipped.\n');
    return ok ? 0 : 1;
  }
  const executor = createNodeSqlExecutor();
  try {
    const { dataset } = await importSpider(spiderDir, executor);
    ok = run('spider', dataset.questions, seed) && ok;
  } finally {
    await executor.close();
  }
  return ok ? 0 : 1;
}

process.exitCode = await main();
