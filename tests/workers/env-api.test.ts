import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { folderBundleReader, writeBundleFolder } from '../../src/data/bundle-node.ts';
import { buildDemoDataset } from '../../src/data/demo/build.ts';
import { runEpisode } from '../../src/eval/episode.ts';
import { SqlEnv } from '../../src/env/env.ts';
import { RandomPolicy } from '../../src/policies/random.ts';
import { createNodeSqlExecutor } from '../../src/sql/node-worker.ts';
import { createEnvApi, type EnvApi } from '../../src/workers/env-api.ts';
import { buildTinyDataset } from '../fixtures/tiny-dataset.ts';

let dir: string;
let service: EnvApi;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sqlenv-bundles-'));
  await writeBundleFolder(join(dir, 'demo'), await buildDemoDataset());
  service = createEnvApi({ createExecutor: () => createNodeSqlExecutor({ limits: { timeoutMs: 800 } }), bundleReader: (name) => folderBundleReader(join(dir, name)), bundleNames: async () => ['demo'] });
});
afterAll(() => service.close());

describe('EnvApi', () => {
  it('summarises a bundle without gold rows and serves a question in full', async () => {
    const summary = await service.loadDataset('demo');
    expect(summary.name).toBe('demo');
    expect(summary.questions.length).toBeGreaterThanOrEqual(60);
    expect(summary.questions[0]).not.toHaveProperty('goldResult');
    const question = await service.question('demo', summary.questions[0].id);
    expect(question.goldResult.rows.length).toBeGreaterThan(0);
  });

  it('reads a schema for completion without spending a step', async () => {
    const { databases } = await service.loadDataset('demo');
    const schema = await service.schema('demo', databases[0].id);
    expect(schema.map((t) => t.name)).toEqual(databases[0].tables);
    expect(schema.every((t) => t.columns.length > 0)).toBe(true);
  });

  it('plays a session by hand and keeps sessions apart', async () => {
    const { questions } = await service.loadDataset('demo');
    await service.reset('a', 'demo', { questionId: questions[0].id });
    await service.reset('b', 'demo', { questionId: questions[1].id });
    const ra = await service.step('a', 'ANSWER 1');
    expect(ra.done).toBe(true);
    const rb = await service.step('b', `DESCRIBE ${(await service.loadDataset('demo')).databases[0].tables[0]}`);
    expect(rb.done).toBe(false);
  });

  it('lets a policy play step by step, as Evaluate records the same episode', async () => {
    const { questions } = await service.loadDataset('demo');
    const id = questions[3].id;
    await service.reset('watch', 'demo', { questionId: id, seed: 11 }, 'random');
    const watched = [];
    for (let done = false; !done; ) {
      const step = await service.policyStep('watch');
      watched.push(step.step.actionText);
      done = step.result.done;
    }
    const executor = createNodeSqlExecutor();
    const { buildDemoDataset: build } = await import('../../src/data/demo/build.ts');
    const record = await runEpisode(new SqlEnv(await build(), executor), new RandomPolicy(), { questionId: id, seed: 11 });
    await executor.close();
    expect(watched).toEqual(record.transcript.map((s) => s.actionText));
  });

  it('evaluates with progress, and cancels a run', async () => {
    const progress: number[] = [];
    const report = await service.evaluate({ runId: 'r1', dataset: 'demo', policy: 'oracle', split: 'eval', episodes: 5, seed: 0 }, (d, _total, current) => {
      if (!current) progress.push(d);
    });
    expect(report.success_rate).toBe(1);
    // The start, then each episode's end (reports of the steps in between: step-progress.test.ts).
    expect(progress).toEqual([0, 1, 2, 3, 4, 5]);
    const running = service.evaluate({ runId: 'r2', dataset: 'demo', policy: 'random', split: 'all', episodes: 500, seed: 0 }, () => service.cancelEvaluation('r2'));
    await expect(running).rejects.toThrow(/cancelled/);
  });

  it('registers datasets made in the page, and explains unknown ones', async () => {
    const tiny = await buildTinyDataset();
    expect(service.addDataset(tiny).questions).toHaveLength(5);
    await service.reset('t', 'tiny', { questionId: 'tiny-1' });
    expect((await service.step('t', 'QUERY SELECT count(*) FROM singer')).observation.result?.rows).toEqual([[5]]);
    await expect(service.loadDataset('nope')).rejects.toThrow(/No readable dataset/);
    await expect(service.step('missing', 'DESCRIBE x')).rejects.toThrow(/No session/);
  });
});
