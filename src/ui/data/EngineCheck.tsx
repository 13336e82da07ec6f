/**
 * One line saying whether the in-browser SQL engine works: the first database opened in the SQL Web Worker and a
 * row count from it, or the error. See useEngineCheck.ts.
 */
import type { Dataset } from '../../data/types.ts';
import { useEngineCheck } from './useEngineCheck.ts';

export function EngineCheck({ dataset }: { dataset: Dataset }) {
  const check = useEngineCheck(dataset);
  return (
    <section className="panel" aria-labelledby="engine-heading">
      <h2 id="engine-heading">SQL engine</h2>
      {check.status === 'running' && <p role="status">Opening the first database in the SQL worker…</p>}
      {check.status === 'ok' && (
        <p role="status">
          SQL engine ready: <code>{check.dbId}</code> has {check.tables} tables; <code>{check.table}</code> has {check.rows} rows
          ({Math.round(check.ms)} ms in a Web Worker).
        </p>
      )}
      {check.status === 'error' && (
        <p className="error" role="alert">
          The SQL engine could not open the first database: {check.message}
        </p>
      )}
    </section>
  );
}
