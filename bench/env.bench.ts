/**
 * `npm run bench:env`: environment step throughput and latency per action type over the curated Spider split
 * (train + eval; SPIDER_DIR, default ../shared/spider), and the overhead of the environment's QUERY step over a
 * bare sql.js `exec` of the same SQL in the same process. Oracle and Random episodes supply the actions; the
 * environment runs once with the killable worker executor (as the CLI and the page do) and once in-thread.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import initSqlJs from 'sql.js';
import { importSpider } from '../src/data/spider.ts';
import type { Dataset } from '../src/data/types.ts';
import { SqlEnv } from '../src/env/env.ts';
import type { ActionType } from '../src/env/actions.ts';
import { OraclePolicy } from '../src/policies/oracle.ts';
import type { Policy } from '../src/policies/policy.ts';
import { RandomPolicy } from '../src/policies/random.ts';
import { createRng } from '../src/data/rng.ts';
import { LocalSqlExecutor, type SqlExecutor } from '../src/sql/executor.ts';
import { createNodeSqlExecutor } from '../src/sql/node-worker.ts';

type Kind = ActionType | 'INVALID';

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

async function measure(dataset: Dataset, executor: SqlExecutor, policies: Policy[]): Promise<{ times: Map<Kind, number[]>; queries: Array<{ dbId: string; sql: string; ms: number }>; wall: number; steps: number }> {
  const env = new SqlEnv(dataset, executor);
  const times = new Map<Kind, number[]>();
  const queries: Array<{ dbId: string; sql: string; ms: number }> = [];
  const questions = dataset.questions.filter((q) => q.split !== 'heldout');
  let steps = 0;
  const started = performance.now();
  for (const policy of policies) {
    for (const [i, question] of questions.entries()) {
      const { observation: first } = await env.reset({ questionId: question.id });
      const rng = createRng(i);
      const history = [];
      let observation = first;
      for (let done = false; !done; ) {
        const decision = await policy.act({ first, history, observation, question, rng });
        const t0 = performance.now();
        const r = await env.step(decision.action);
        const ms = performance.now() - t0;
        steps++;
        const kind = r.info.action.type;
        times.set(kind, [...(times.get(kind) ?? []), ms]);
        if (r.info.action.type === 'QUERY' && r.info.outcome !== 'error') queries.push({ dbId: question.dbId, sql: r.info.action.sql, ms });
        history.push({ action: r.info.action, observation: r.observation, reward: r.reward });
        observation = r.observation;
        done = r.done;
      }
    }
  }
  return { times, queries, wall: performance.now() - started, steps };
}

async function bareExecMs(dataset: Dataset, queries: Array<{ dbId: string; sql: string }>): Promise<number[]> {
  const SQL = await initSqlJs();
  const dbs = new Map<string, InstanceType<typeof SQL.Database>>();
  const out: number[] = [];
  for (const { dbId, sql } of queries) {
    let db = dbs.get(dbId);
    if (!db) {
      db = new SQL.Database(await dataset.loadDatabase(dbId));
      dbs.set(dbId, db);
    }
    const t0 = performance.now();
    db.exec(sql);
    out.push(performance.now() - t0);
  }
  for (const db of dbs.values()) db.close();
  return out;
}

function report(label: string, run: Awaited<ReturnType<typeof measure>>): void {
  console.log(`\n${label}: ${run.steps} steps in ${(run.wall / 1000).toFixed(2)} s = ${(run.steps / (run.wall / 1000)).toFixed(0)} steps/s (policy time included)`);
  console.log(`${'action'.padEnd(10)} ${'n'.padStart(6)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'mean ms'.padStart(8)}`);
  for (const [kind, values] of [...run.times].sort()) {
    const sorted = [...values].sort((a, b) => a - b);
    const mean = values.reduce((a, b) => a + b, 0) / values.length;
    console.log(`${kind.padEnd(10)} ${String(values.length).padStart(6)} ${percentile(sorted, 0.5).toFixed(3).padStart(8)} ${percentile(sorted, 0.99).toFixed(3).padStart(8)} ${mean.toFixed(3).padStart(8)}`);
  }
}

async function main(): Promise<void> {
  const spiderDir = process.env.SPIDER_DIR ?? resolve('../shared/spider');
  readFileSync(join(spiderDir, 'dev.json'));
  const importer = createNodeSqlExecutor();
  const { dataset } = await importSpider(spiderDir, importer);
  await importer.close();
  const policies = [new OraclePolicy(), new RandomPolicy()];
  console.log(`curated split: ${dataset.questions.filter((q) => q.split !== 'heldout').length} questions; Oracle + Random episodes over each`);

  const worker = createNodeSqlExecutor();
  const viaWorker = await measure(dataset, worker, policies);
  await worker.close();
  report('environment, SQL in a worker thread (CLI and page)', viaWorker);

  const local = new LocalSqlExecutor(await initSqlJs());
  const inThread = await measure(dataset, local, policies);
  await local.close();
  report('environment, SQL in-thread', inThread);

  for (const [label, run] of [['worker', viaWorker], ['in-thread', inThread]] as const) {
    const bare = await bareExecMs(dataset, run.queries);
    const envTotal = run.queries.reduce((a, q) => a + q.ms, 0);
    const bareTotal = bare.reduce((a, b) => a + b, 0);
    const envMedian = percentile([...run.queries.map((q) => q.ms)].sort((a, b) => a - b), 0.5);
    const bareMedian = percentile([...bare].sort((a, b) => a - b), 0.5);
    console.log(`QUERY step vs bare sql.js exec (${label}, ${run.queries.length} queries): total ${envTotal.toFixed(0)} ms vs ${bareTotal.toFixed(0)} ms = ${(envTotal / bareTotal).toFixed(2)}x; median ${envMedian.toFixed(3)} vs ${bareMedian.toFixed(3)} ms = ${(envMedian / bareMedian).toFixed(2)}x`);
  }
}

await main();
