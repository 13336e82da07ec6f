/**
 * The one cancellation error and its guard: what counts as a cancellation (CancelledError, the platform's
 * AbortError), what does not (other errors, other DOMExceptions, non-errors), and that a CancelledError thrown in a
 * worker is still recognised on the other side of Comlink, which rebuilds thrown errors as plain Errors.
 */
import { expose, wrap } from 'comlink';
import { afterEach, describe, expect, it } from 'vitest';
import { CancelledError, isCancelled } from '../../src/util/cancelled.ts';

/** What the settled promise rejected with (fails the test if it resolved). */
async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected a rejection');
}

describe('isCancelled', () => {
  it('accepts a CancelledError and the platform AbortError', () => {
    expect(isCancelled(new CancelledError('Evaluation cancelled.'))).toBe(true);
    expect(isCancelled(new DOMException('aborted', 'AbortError'))).toBe(true);
    // An AbortController aborted without a reason, or AbortSignal.abort(): the reason is an AbortError.
    expect(isCancelled(AbortSignal.abort().reason)).toBe(true);
    const controller = new AbortController();
    controller.abort();
    expect(isCancelled(rejectionOf(() => controller.signal.throwIfAborted()))).toBe(true);
  });

  it('refuses other errors, other DOMExceptions and things that are not errors', () => {
    expect(isCancelled(new Error('cancelled'))).toBe(false);
    expect(isCancelled(new RangeError('CancelledError'))).toBe(false);
    expect(isCancelled(new DOMException('full', 'QuotaExceededError'))).toBe(false);
    expect(isCancelled(new DOMException('timeout', 'TimeoutError'))).toBe(false);
    expect(isCancelled('CancelledError')).toBe(false);
    expect(isCancelled('AbortError')).toBe(false);
    expect(isCancelled(null)).toBe(false);
    expect(isCancelled(undefined)).toBe(false);
    expect(isCancelled({ message: 'cancelled' })).toBe(false);
  });

  it('a CancelledError is an Error with its message and name', () => {
    const e = new CancelledError('Download of model.safetensors cancelled.');
    expect(e).toBeInstanceOf(Error);
    expect(e.message).toBe('Download of model.safetensors cancelled.');
    expect(e.name).toBe('CancelledError');
  });
});

/** What `f` throws (fails the test if it returns). */
function rejectionOf(f: () => void): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  throw new Error('expected a throw');
}

describe('across a worker boundary (Comlink over a MessageChannel, as env-client.ts and env.worker.ts use it)', () => {
  const channels: MessageChannel[] = [];
  afterEach(() => {
    for (const c of channels.splice(0)) {
      c.port1.close();
      c.port2.close();
    }
  });

  /** A remote api whose methods throw what they are told to, reached through structured clone as a page reaches the worker. */
  function remote() {
    const channel = new MessageChannel();
    channels.push(channel);
    const api = {
      cancel: async (): Promise<void> => {
        throw new CancelledError('Evaluation cancelled.');
      },
      abort: async (): Promise<void> => {
        const controller = new AbortController();
        controller.abort();
        controller.signal.throwIfAborted();
      },
      fail: async (): Promise<void> => {
        throw new RangeError('episodes must be at least 1');
      },
    };
    expose(api, channel.port1);
    return wrap<typeof api>(channel.port2);
  }

  it('a CancelledError loses its class but is still recognised; a failure is not', async () => {
    const api = remote();
    const cancelled = await rejection(api.cancel());
    // The premise: the class really is lost on the way (otherwise this test would not test the guard's fallback).
    expect(cancelled).not.toBeInstanceOf(CancelledError);
    expect(cancelled).toBeInstanceOf(Error);
    expect((cancelled as Error).message).toBe('Evaluation cancelled.');
    expect(isCancelled(cancelled)).toBe(true);
    expect(isCancelled(await rejection(api.abort()))).toBe(true);
    expect(isCancelled(await rejection(api.fail()))).toBe(false);
  });
});
