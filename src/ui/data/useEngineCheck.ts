/**
 * `useEngineCheck(dataset)`: opens the dataset's first database in the SQL Web Worker (sql.js, its WASM served by
 * the app) and counts the rows of its first table. It proves, in the built page, that the worker, the WASM asset and
 * the bundle's database files all load; the Play view (issue 3) replaces it. The executor is closed on unmount.
 */
import { useEffect, useState } from 'react';
import type { Dataset } from '../../data/types.ts';
import { createBrowserSqlExecutor } from '../../sql/browser-worker.ts';

export type EngineCheck =
  | { status: 'running' }
  | { status: 'ok'; dbId: string; tables: number; table: string; rows: number; ms: number }
  | { status: 'error'; message: string };

/** SQLite identifier quoting: double quotes, inner quotes doubled. */
const quoteIdent = (name: string): string => `"${name.replaceAll('"', '""')}"`;

async function check(dataset: Dataset, signal: { cancelled: boolean }): Promise<EngineCheck> {
  const db = dataset.databases[0];
  if (!db) return { status: 'error', message: `Dataset '${dataset.name}' has no databases.` };
  const started = performance.now();
  const executor = createBrowserSqlExecutor();
  try {
    await executor.load(db.id, await dataset.loadDatabase(db.id));
    const tables = await executor.tables(db.id);
    const table = tables[0];
    if (signal.cancelled) return { status: 'running' };
    if (table === undefined) return { status: 'error', message: `Database '${db.id}' has no tables.` };
    const result = await executor.query(db.id, `SELECT count(*) FROM ${quoteIdent(table)}`);
    return { status: 'ok', dbId: db.id, tables: tables.length, table, rows: Number(result.rows[0]?.[0]), ms: performance.now() - started };
  } finally {
    await executor.close();
  }
}

export function useEngineCheck(dataset: Dataset): EngineCheck {
  const [state, setState] = useState<{ dataset: Dataset; check: EngineCheck } | null>(null);
  useEffect(() => {
    const signal = { cancelled: false };
    check(dataset, signal).then(
      (result) => {
        if (!signal.cancelled) setState({ dataset, check: result });
      },
      (error: unknown) => {
        if (!signal.cancelled) setState({ dataset, check: { status: 'error', message: error instanceof Error ? error.message : String(error) } });
      },
    );
    return () => {
      signal.cancelled = true;
    };
  }, [dataset]);
  return state?.dataset === dataset ? state.check : { status: 'running' };
}
