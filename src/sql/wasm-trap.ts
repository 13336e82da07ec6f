/**
 * WASM traps inside sql.js. A trap (an out-of-bounds memory access, `unreachable`, an Emscripten abort) stops SQLite
 * midway through writing its own heap: whatever the module holds afterwards — every open database, the allocator's
 * lists — may be corrupt, so the only safe answer is to throw the whole module (its worker) away. sql.js does not
 * say so: the trap arrives from `exec`/`step`/`prepare` like any SQLite error.
 *
 * `isWasmTrap` recognises them: a `WebAssembly.RuntimeError` (what V8 throws for every trap, `Aborted(…)` included),
 * or, for errors that were copied or re-wrapped on the way (a message crossing a worker boundary), the messages V8
 * and Emscripten give traps. `WasmTrapError` is the typed error the engine throws for one. It is deliberately NOT a
 * SqlError: code that treats a SqlError as "SQLite rejected this statement" and carries on (a failed run on a
 * perturbed copy) must let a trap through to the worker host, which answers it as a crash; the executor then replaces
 * the worker before any other request runs and rejects the request with SqlError('crashed') (worker-executor.ts).
 * So: in-thread callers see WasmTrapError; callers of a worker executor (the Spider importer) see a SqlError of kind
 * 'crashed' whose message says SQLite crashed.
 */

/** Messages of the traps V8 raises in WebAssembly code, and Emscripten's abort. */
const TRAP_MESSAGE = /^(RuntimeError: )?(memory access out of bounds|unreachable( executed)?|integer (overflow|divide by zero)|invalid conversion to integer|indirect call|null function|table index is out of bounds|call stack exhausted|divide result unrepresentable|Aborted\()/i;

export function isWasmTrap(e: unknown): boolean {
  if (e instanceof WebAssembly.RuntimeError) return true;
  const message = e instanceof Error ? e.message : typeof e === 'string' ? e : '';
  return TRAP_MESSAGE.test(message);
}

export class WasmTrapError extends Error {
  constructor(cause: unknown) {
    const detail = cause instanceof Error ? cause.message : String(cause);
    super(
      `SQLite crashed inside WebAssembly (${detail}). The statement was stopped and its SQL worker replaced; other databases are reopened from their files. Avoid the function or size that caused it.`,
    );
    this.name = 'WasmTrapError';
  }
}

/** `e` as a WasmTrapError when it is a trap (or already one), else null. */
export function asWasmTrap(e: unknown): WasmTrapError | null {
  if (e instanceof WasmTrapError) return e;
  return isWasmTrap(e) ? new WasmTrapError(e) : null;
}
