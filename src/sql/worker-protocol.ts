/**
 * Messages between `WorkerSqlExecutor` and the SQL worker: one discriminated union each way, keyed by `type`.
 * Every request carries an id; the worker answers each with exactly one `result` or `error` of the same id.
 */
import type { CopiesRun, QueryResult, SqlErrorKind, TableInfo } from './types.ts';

export type SqlRequest =
  /** `contentKey`: the bytes' content (content-key.ts), so loads of one content share the engine's perturbed copies. */
  | { id: number; type: 'load'; dbKey: string; bytes: Uint8Array; contentKey?: string }
  /** Opens `dbKey` on the connection the worker already has for `contentKey` (SqlEngine.share): no bytes sent. */
  | { id: number; type: 'share'; dbKey: string; contentKey: string }
  /** Forgets `dbKey`; its connection closes with the last key using it. */
  | { id: number; type: 'unload'; dbKey: string }
  | { id: number; type: 'query'; dbKey: string; sql: string; maxRows: number }
  /** Builds the database's perturbed copies if not kept yet (answers how many); sent apart, with a generous limit. */
  | { id: number; type: 'build-copies'; dbKey: string }
  /** Runs a statement and the gold SQL on the perturbed copies (SqlEngine.runOnCopies). */
  | { id: number; type: 'run-on-copies'; dbKey: string; sql: string; goldSql: string; maxRows: number }
  | { id: number; type: 'tables'; dbKey: string }
  | { id: number; type: 'describe'; dbKey: string; table: string }
  | { id: number; type: 'sample'; dbKey: string; table: string; rows: number };

export type SqlResultValue = null | boolean | number | QueryResult | CopiesRun | string[] | TableInfo;

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
