/**
 * Messages between `WorkerSqlExecutor` and the SQL worker: one discriminated union each way, keyed by `type`.
 * Every request carries an id; the worker answers each with exactly one `result` or `error` of the same id.
 */
import type { QueryResult, SqlErrorKind, TableInfo } from './types.ts';

export type SqlRequest =
  /** `contentKey`: the bytes' content (content-key.ts), so loads of one content share the engine's empty twin. */
  | { id: number; type: 'load'; dbKey: string; bytes: Uint8Array; contentKey?: string }
  /** `keepForCompare`: the worker keeps this result for a `reads-data` request that follows it. */
  | { id: number; type: 'query'; dbKey: string; sql: string; maxRows: number; keepForCompare: boolean }
  /** Runs the last kept query on the database's empty twin: whether its result depends on the rows. */
  | { id: number; type: 'reads-data'; dbKey: string }
  | { id: number; type: 'tables'; dbKey: string }
  | { id: number; type: 'describe'; dbKey: string; table: string }
  | { id: number; type: 'sample'; dbKey: string; table: string; rows: number };

export type SqlResultValue = null | boolean | QueryResult | string[] | TableInfo;

export type SqlResponse =
  | { id: number; type: 'result'; value: SqlResultValue }
  | { id: number; type: 'error'; kind: SqlErrorKind; message: string };

/** The transport the executor needs: a Web Worker or a Node worker thread behind one shape. */
export interface WorkerPort {
  send(request: SqlRequest): void;
  onResponse(handler: (response: SqlResponse) => void): void;
  /** Called when the worker dies (an uncaught error, an abort inside WASM, or an exit). */
  onFailure(handler: (error: Error) => void): void;
  terminate(): void;
}
