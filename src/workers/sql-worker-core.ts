/**
 * What the SQL worker does with a request, independent of the transport (Web Worker or Node worker thread).
 */
import { SqlEngine } from '../sql/engine.ts';
import { SqlError, type QueryResult } from '../sql/types.ts';
import type { SqlRequest, SqlResponse, SqlResultValue } from '../sql/worker-protocol.ts';

/** The last query a `reads-data` request may compare with the empty twin (requests run one at a time). */
interface KeptQuery {
  dbKey: string;
  sql: string;
  maxRows: number;
  result: QueryResult;
}
let kept: KeptQuery | null = null;

function dispatch(engine: SqlEngine, request: SqlRequest): SqlResultValue {
  switch (request.type) {
    case 'load':
      engine.load(request.dbKey, request.bytes, request.contentKey);
      return null;
    case 'query': {
      kept = null;
      const result = engine.query(request.dbKey, request.sql, { maxRows: request.maxRows });
      if (request.keepForCompare) kept = { dbKey: request.dbKey, sql: engine.guarded(request.sql), maxRows: request.maxRows, result };
      return result;
    }
    case 'reads-data': {
      const k = kept;
      kept = null;
      // Nothing kept for this database (a replaced worker): unchecked counts as reading.
      return k === null || k.dbKey !== request.dbKey ? true : engine.readsData(k.dbKey, k.sql, k.maxRows, k.result);
    }
    case 'tables':
      return engine.tables(request.dbKey);
    case 'describe':
      return engine.describe(request.dbKey, request.table);
    case 'sample':
      return engine.sample(request.dbKey, request.table, request.rows);
    default:
      return request satisfies never;
  }
}

export function handleSqlRequest(engine: SqlEngine, request: SqlRequest): SqlResponse {
  try {
    return { id: request.id, type: 'result', value: dispatch(engine, request) };
  } catch (e) {
    if (e instanceof SqlError) return { id: request.id, type: 'error', kind: e.kind, message: e.message };
    // Anything else (an Emscripten abort, out of memory) leaves the module unusable: report it as a crash so the
    // client replaces this worker.
    return { id: request.id, type: 'error', kind: 'crashed', message: e instanceof Error ? e.message : String(e) };
  }
}
