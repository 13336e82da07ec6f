/**
 * SerialQueue, the one lock: FIFO order with no overlap, a failure fails only its own caller, the stated
 * non-re-entrancy (a task queued from inside a holder runs after it), and `size`/`idle` for owners that wait or report.
 */
import { describe, expect, it } from 'vitest';
import { SerialQueue } from '../../src/util/serial-queue.ts';

/** A promise whose settling the test controls. */
function deferred<T = void>(): { promise: Promise<T>; resolve: (v: T) => void; reject: (e: unknown) => void } {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Lets every already-queued microtask and promise reaction run. */
const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('SerialQueue', () => {
  it('runs tasks one at a time, in the order they were queued', async () => {
    const queue = new SerialQueue();
    const log: string[] = [];
    const gates = [deferred(), deferred(), deferred()];
    const runs = gates.map((gate, i) =>
      queue.run(async () => {
        log.push(`start ${i}`);
        await gate.promise;
        log.push(`end ${i}`);
        return i * 10;
      }),
    );
    await flush();
    expect(log).toEqual(['start 0']);
    // Releasing a later task first must not let it run ahead of the one holding the queue.
    gates[2].resolve();
    gates[1].resolve();
    await flush();
    expect(log).toEqual(['start 0']);
    gates[0].resolve();
    expect(await Promise.all(runs)).toEqual([0, 10, 20]);
    expect(log).toEqual(['start 0', 'end 0', 'start 1', 'end 1', 'start 2', 'end 2']);
  });

  it('a task that rejects or throws fails only its own caller; the next task still runs', async () => {
    const queue = new SerialQueue();
    const rejected = queue.run(async () => {
      throw new RangeError('first');
    });
    const thrown = queue.run((): number => {
      throw new TypeError('second');
    });
    const fine = queue.run(async () => 'third ran');
    await expect(rejected).rejects.toThrow(RangeError);
    await expect(thrown).rejects.toThrow(TypeError);
    expect(await fine).toBe('third ran');
    expect(queue.size).toBe(0);
  });

  it('is not re-entrant: a task queued from inside a holder runs after the holder has finished', async () => {
    const queue = new SerialQueue();
    const log: string[] = [];
    const inner: Promise<void>[] = [];
    await queue.run(async () => {
      log.push('outer start');
      inner.push(
        queue.run(() => {
          log.push('inner');
        }),
      );
      await flush();
      log.push('outer end');
    });
    await Promise.all(inner);
    expect(inner).toHaveLength(1);
    expect(log).toEqual(['outer start', 'outer end', 'inner']);
  });

  it('size counts queued and running tasks; idle waits for all of them, failures included', async () => {
    const queue = new SerialQueue();
    expect(queue.size).toBe(0);
    const gate = deferred();
    const first = queue.run(() => gate.promise);
    const second = queue.run(async () => {
      throw new Error('fails');
    });
    second.catch(() => undefined);
    expect(queue.size).toBe(2);
    let idle = false;
    void queue.idle().then(() => (idle = true));
    await flush();
    expect(idle).toBe(false);
    gate.resolve();
    await first;
    await queue.idle();
    expect(idle).toBe(true);
    expect(queue.size).toBe(0);
  });
});
