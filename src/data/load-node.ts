/**
 * Loading a dataset by name in Node (CLI, tests, benchmarks): `demo` is generated in memory, `spider` imported from
 * `SPIDER_DIR` (Spider's official layout).
 */
import { buildDemoDataset } from './demo/build.ts';
import { DatasetError } from './bundle.ts';
import { importSpider } from './spider.ts';
import type { Dataset } from './types.ts';
import type { SqlExecutor } from '../sql/executor.ts';

export type DatasetName = 'demo' | 'spider';
export const DATASET_NAMES: readonly DatasetName[] = ['demo', 'spider'];

export function spiderDirFromEnv(): string {
  const dir = process.env.SPIDER_DIR;
  if (!dir) throw new DatasetError('SPIDER_DIR is not set: point it at a folder in Spider\'s official layout (database/, dev.json, tables.json), e.g. SPIDER_DIR=../shared/spider.');
  return dir;
}

export async function loadNodeDataset(name: DatasetName, executor: SqlExecutor, onProgress?: (done: number, total: number) => void): Promise<Dataset> {
  switch (name) {
    case 'demo':
      return buildDemoDataset();
    case 'spider':
      return (await importSpider(spiderDirFromEnv(), executor, { onProgress })).dataset;
    default:
      return name satisfies never;
  }
}
