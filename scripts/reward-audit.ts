/**
 * `npm run audit:rewards -- [--dataset demo|spider] [--seed S] [--random N] [--depth D] [--every K]`: the adversarial
 * search of src/eval/reward-audit.ts over a dataset's questions (Spider from SPIDER_DIR; every K-th question), with
 * a report of what it tried and any trajectory that breaks the reward properties. Exits 1 on a violation.
 */
import initSqlJs from 'sql.js';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadNodeDataset, type DatasetName } from '../src/data/load-node.ts';
import type { Question } from '../src/data/types.ts';
import { SqlEnv } from '../src/env/env.ts';
import { auditRewards, formatAuditReport } from '../src/eval/reward-audit.ts';
import { LocalSqlExecutor } from '../src/sql/executor.ts';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { dataset: { type: 'string', default: 'spider' }, seed: { type: 'string' }, random: { type: 'string', default: '20' }, depth: { type: 'string', default: '9' }, every: { type: 'string', default: '1' } },
  });
  const name = values.dataset === 'demo' ? 'demo' : values.dataset === 'spider' ? 'spider' : null;
  if (!name) throw new Error(`--dataset must be demo or spider, got '${values.dataset}'`);
  process.env.SPIDER_DIR ??= resolve('../shared/spider');
  const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
  const executor = new LocalSqlExecutor(await initSqlJs());
  const dataset = await loadNodeDataset(name satisfies DatasetName, executor);
  const every = Math.max(1, Number(values.every));
  const questions = dataset.questions.filter((_, i) => i % every === 0);
  const tables = (q: Question) => dataset.databases.find((d) => d.id === q.dbId)?.tables ?? [];
  process.stderr.write(`auditing ${questions.length} ${name} questions, seed ${seed}\n`);
  const started = performance.now();
  const report = await auditRewards(new SqlEnv(dataset, executor), questions, tables, { seed, randomTrajectories: Number(values.random), greedyDepth: Number(values.depth) });
  await executor.close();
  console.log(formatAuditReport(report));
  console.log(`seed ${seed}, ${((performance.now() - started) / 1000).toFixed(1)} s`);
  if (report.violations.length > 0) process.exit(1);
}

main().catch((e: unknown) => {
  process.stderr.write(`reward-audit: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
