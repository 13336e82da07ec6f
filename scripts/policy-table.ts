/**
 * `npm run audit:policies -- [--seed S] [--dataset demo|spider|both]`: the policy table of src/eval/policy-table.ts
 * over every question of the demo data and of Spider dev (SPIDER_DIR, default ../shared/spider), with the required
 * order checked. Exits 1 when a relation fails.
 */
import initSqlJs from 'sql.js';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadNodeDataset, type DatasetName } from '../src/data/load-node.ts';
import { SqlEnv } from '../src/env/env.ts';
import { formatPolicyTable, policyTable } from '../src/eval/policy-table.ts';
import { LocalSqlExecutor } from '../src/sql/executor.ts';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { seed: { type: 'string' }, dataset: { type: 'string', default: 'both' } } });
  const names: DatasetName[] = values.dataset === 'both' ? ['demo', 'spider'] : values.dataset === 'demo' || values.dataset === 'spider' ? [values.dataset] : [];
  if (names.length === 0) throw new Error(`--dataset must be demo, spider or both, got '${values.dataset}'`);
  process.env.SPIDER_DIR ??= resolve('../shared/spider');
  const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
  console.log(`policy table, seed ${seed} (replay with --seed ${seed})`);
  let failed = false;
  for (const name of names) {
    const executor = new LocalSqlExecutor(await initSqlJs());
    const dataset = await loadNodeDataset(name, executor);
    const started = performance.now();
    const table = await policyTable(new SqlEnv(dataset, executor), dataset.questions, seed);
    await executor.close();
    console.log(`\n${formatPolicyTable(name, table)}\n(${((performance.now() - started) / 1000).toFixed(1)} s)`);
    failed ||= table.failures.length > 0;
  }
  if (failed) process.exit(1);
}

main().catch((e: unknown) => {
  process.stderr.write(`policy-table: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
