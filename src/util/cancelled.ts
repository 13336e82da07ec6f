/**
 * The one cancellation error: whatever the user (or a newer request) cancels — a download, a model load, an
 * evaluation, an import, an explanation, a server session's waiting SQL call — rejects with `CancelledError`, and
 * every catch site asks `isCancelled(e)`, never an error's name.
 *
 * How to think about it: a cancellation is not a failure; callers show it as "cancelled", not as an error. Two other
 * shapes mean the same and are accepted by the guard: `fetch`, `AbortSignal.throwIfAborted()` and an
 * `AbortController.abort()` without a reason reject with a DOMException named 'AbortError' (the platform's word for
 * it), and an error that crossed a worker boundary has lost its class (Comlink and structured clone rebuild it as a
 * plain Error, keeping only message, name and stack), so there only its name is left to recognise it by. Those two
 * name checks live here and nowhere else.
 *
 * This module imports nothing, so every layer may use it.
 */

/** The name every CancelledError carries, also after a worker boundary has turned it into a plain Error. */
export const CANCELLED_ERROR_NAME = 'CancelledError';

/** The platform's name for an aborted fetch or AbortSignal (a DOMException). */
const ABORT_ERROR_NAME = 'AbortError';

export class CancelledError extends Error {
  override readonly name = CANCELLED_ERROR_NAME;

  /** `message` says what was cancelled and what is kept (for example, a download's bytes for a resume). */
  constructor(message: string) {
    super(message);
  }
}

/** True for a cancellation: a CancelledError (here or rebuilt after a worker boundary) or an AbortError. */
export function isCancelled(e: unknown): boolean {
  if (e instanceof CancelledError) return true;
  if (typeof e !== 'object' || e === null || !('name' in e)) return false;
  return e.name === CANCELLED_ERROR_NAME || e.name === ABORT_ERROR_NAME;
}
