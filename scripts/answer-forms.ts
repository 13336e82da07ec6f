/**
 * `npm run eval:answer-forms` (or `npx tsx scripts/answer-forms.ts`): the corpus of fair answer forms
 * (src/eval/answer-forms.ts) on the demo dataset and, when SPIDER_DIR is set, on every kept Spider dev question:
 * acceptance per form, the hedge search over every pair of different gold results of one database, and the golds
 * with ORDER BY ties (src/data/gold.ts). Exits 1 when a form is refused for its own gold or a hedge exists.
 */
import { buildDemoDataset } from '../src/data/demo/build.ts';
import { importSpider } from '../src/data/spider.ts';
import type { Question } from '../src/data/types.ts';
import { findHedges, formatFormsReport, formatHedgeReport, runAnswerForms } from '../src/eval/answer-forms.ts';
import { tieRewrite } from '../src/sql/order-by.ts';
import { createNodeSqlExecutor } from '../src/sql/node-worker.ts';

function tieSummary(questions: readonly Question[]): string {
  const ordered = questions.filter((q) => q.orderMatters);
  const limited = ordered.filter((q) => /\blimit\b/i.test(q.gold));
  const withTies = questions.filter((q) => q.goldTies);
  const atCutoff = withTies.filter((q) => q.goldTies!.segments.some((s) => s.pool.length > s.take));
  const notRewritten = ordered.filter((q) => !tieRewrite(q.gold));
  const example = atCutoff[0];
  return [
    `ties: ${ordered.length} golds with an outer ORDER BY (${limited.length} with LIMIT); ${withTies.length} have tied rows, ` +
      `${atCutoff.length} of them at a LIMIT cut-off (other rows may legally be returned), ${withTies.length - atCutoff.length} only in order`,
    `ties: ${notRewritten.length} outer ORDER BY golds could not be rewritten (strict, as before)` +
      (notRewritten.length > 0 ? `: ${notRewritten.slice(0, 5).map((q) => q.id).join(', ')}${notRewritten.length > 5 ? ', …' : ''}` : ''),
    ...(example ? [`ties: e.g. ${example.id} (${example.gold}): ${example.goldTies!.segments.map((s) => `${s.take} of ${s.pool.length}`).join(', ')}`] : []),
  ].join('\n');
}

function run(name: string, questions: readonly Question[]): boolean {
  const forms = runAnswerForms(questions);
  process.stdout.write(`${formatFormsReport(forms, `${name} answer forms`)}\n`);
  for (const [id, form, text] of forms.refused.slice(0, 10)) process.stdout.write(`  refused ${form} ${id}: ${JSON.stringify(text.slice(0, 160))}\n`);
  const hedges = findHedges(questions);
  process.stdout.write(`\n${formatHedgeReport(hedges, `${name} hedge search`)}\n\n${tieSummary(questions)}\n\n`);
  return forms.refused.length === 0 && hedges.hedges.length === 0;
}

async function main(): Promise<number> {
  let ok = run('demo', (await buildDemoDataset()).questions);
  const spiderDir = process.env.SPIDER_DIR;
  if (!spiderDir) {
    process.stdout.write('SPIDER_DIR is not set: Spider skipped.\n');
    return ok ? 0 : 1;
  }
  const executor = createNodeSqlExecutor();
  try {
    const { dataset } = await importSpider(spiderDir, executor);
    ok = run('spider', dataset.questions) && ok;
  } finally {
    await executor.close();
  }
  return ok ? 0 : 1;
}

process.exitCode = await main();
