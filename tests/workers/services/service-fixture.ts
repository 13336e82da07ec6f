/**
 * What the service tests share: the tiny dataset, in-thread SQL executors that count how many were made and closed,
 * a policy that always plays one fixed action (to tell a registry's own policies from the built-ins), and a fake
 * loaded model on the toy tokenizer and config (no engine: it never generates anything useful).
 */
import initSqlJs from 'sql.js';
import type { Dataset } from '../../../src/data/types.ts';
import type { Policy } from '../../../src/policies/policy.ts';
import { toyModelConfig } from '../../../src/train/toy-run.ts';
import { createToyTokenizer } from '../../../src/train/toy-task.ts';
import type { AdapterSource, LoadedLlm } from '../../../src/workers/llm-generate.ts';
import { LocalSqlExecutor, type SqlExecutor } from '../../../src/sql/executor.ts';
import { buildTinyDataset } from '../../fixtures/tiny-dataset.ts';

export interface CountingExecutors {
  create: () => SqlExecutor;
  made: () => number;
  closed: () => number;
}

/** In-thread executors (sql.js) that count how many were made and how many closed. */
export async function countingExecutors(): Promise<CountingExecutors> {
  const sql = await initSqlJs();
  let made = 0;
  let closed = 0;
  return {
    made: () => made,
    closed: () => closed,
    create: () => {
      made++;
      const executor = new LocalSqlExecutor(sql);
      return {
        load: (k, b) => executor.load(k, b),
        query: (k, q, l) => executor.query(k, q, l),
        runOnCopies: (k, q, g, l) => executor.runOnCopies(k, q, g, l),
        tables: (k) => executor.tables(k),
        describe: (k, t) => executor.describe(k, t),
        sample: (k, t, n) => executor.sample(k, t, n),
        close: async () => {
          closed++;
          await executor.close();
        },
      };
    },
  };
}

/** The tiny dataset (tests/fixtures/tiny-dataset.ts), as a name lookup. */
export async function tinyLookup(): Promise<{ dataset: Dataset; lookup: (name: string) => Promise<Dataset> }> {
  const dataset = await buildTinyDataset();
  return {
    dataset,
    lookup: async (name) => {
      if (name !== dataset.name) throw new RangeError(`No readable dataset '${name}'.`);
      return dataset;
    },
  };
}

/** A policy that always plays `action`, with `rawText` beside it. */
export function fixedPolicy(name: string, action: string, rawText = `I play ${action}`): Policy {
  return { name, act: async () => ({ action, rawText }) };
}

export interface FakeLlm extends LoadedLlm {
  /** How often `destroy` was called. */
  destroyed(): number;
  /** The adapter keys `generateWith` was asked for. */
  adapterKeys: string[];
}

/** A loaded model that answers every turn with the same text; `adapters: false` makes one that takes no adapters. */
export function fakeLlm(label: string, options: { adapters?: boolean } = {}): FakeLlm {
  const tokenizer = createToyTokenizer();
  let destroyed = 0;
  const adapterKeys: string[] = [];
  const generate = async () => ({ tokenIds: [tokenizer.special.imEnd], text: 'no tool' });
  return {
    label,
    config: toyModelConfig(tokenizer.size),
    tokenizer,
    generate,
    ...(options.adapters !== false && {
      generateWith: (source: AdapterSource) => {
        adapterKeys.push(source.key);
        return generate;
      },
    }),
    contextTokens: 256,
    adapter: 'fake/none',
    weights: 'f16',
    recoveries: () => 0,
    destroy: () => void destroyed++,
    destroyed: () => destroyed,
    adapterKeys,
  };
}
