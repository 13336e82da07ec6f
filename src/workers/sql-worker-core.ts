/**
 * What the SQL worker does with a request, independent of the transport (Web Worker or Node worker thread).
 *
 * Crashes: anything thrown that is not a SqlError — above all a WASM trap (wasm-trap.ts), but also a SqlError whose
 * message is a trap's — is answered as `kind: 'crashed'`, and the engine is marked poisoned: its heap may be
 * overwritten, so every later request on it is refused as a crash too rather than run on corrupt memory. The
 * executor replaces a worker that answers 'crashed' before it sends anything else (worker-executor.ts).
 */
import { SqlEngine } from '../sql/engine.ts';
import { SqlError } from '../sql/types.ts';
import { isWasmTrap, WasmTrapError } from '../sql/wasm-trap.ts';
import type { SqlRequest, SqlResponse, SqlResultValue } from '../sql/worker-protocol.ts';

function dispatch(engine: SqlEngine, request: SqlRequest): SqlResultValue {
  switch (request.type) {
    case 'load':
      engine.load(request.dbKey, request.bytes, request.contentKey);
      return null;
    case 'share':
      if (!engine.share(request.dbKey, request.contentKey)) {
        throw new SqlError('no-database', `Database '${request.dbKey}': no load of its content is open on this worker; send its bytes.`);
      }
      return null;
    case 'unload':
      engine.unload(request.dbKey);
      return null;
    case 'query':
      return engine.query(request.dbKey, request.sql, { maxRows: request.maxRows });
    case 'build-copies':
      return engine.buildCopies(request.dbKey);
    case 'run-on-copies':
      return engine.runOnCopies(request.dbKey, request.sql, request.goldSql, request.maxRows);
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

/** Engines that crashed: never trusted again. */
const poisoned = new WeakMap<SqlEngine, string>();

export function handleSqlRequest(engine: SqlEngine, request: SqlRequest): SqlResponse {
  const crash = poisoned.get(engine);
  if (crash !== undefined) return { id: request.id, type: 'error', kind: 'crashed', message: `This SQL worker crashed earlier (${crash}); it must be replaced.` };
  try {
    return { id: request.id, type: 'result', value: dispatch(engine, request) };
  } catch (e) {
    if (e instanceof SqlError && !isWasmTrap(e)) return { id: request.id, type: 'error', kind: e.kind, message: e.message };
    // A trap, an Emscripten abort or out of memory leaves the module unusable: report a crash so the client
    // replaces this worker.
    const message = e instanceof WasmTrapError ? e.message : isWasmTrap(e) ? new WasmTrapError(e).message : `SQL worker crashed: ${e instanceof Error ? e.message : String(e)}`;
    poisoned.set(engine, message);
    return { id: request.id, type: 'error', kind: 'crashed', message };
  }
}
