/**
 * One lock for the whole codebase: a FIFO queue that runs async tasks one at a time.
 *
 * How to think about it: `run(task)` starts `task` once every task queued before it has settled (resolved or
 * rejected), and returns `task`'s own result. A task that throws or rejects fails only its own caller; the tasks behind
 * it still run. The queue is NOT re-entrant: a task that queues another task on the same queue gets it run after
 * itself, so awaiting that inner task from inside the holder waits forever (deadlock). Code that needs a step inside a
 * held section calls the step directly instead of through `run`.
 *
 * This module imports nothing, so every layer (sql, server, workers, ui) may use it.
 */
export class SerialQueue {
  /** Settles after the last queued task settles; never rejects (a failure belongs to its own caller). */
  private tail: Promise<void> = Promise.resolve();
  private count = 0;

  /** Tasks queued or running now. */
  get size(): number {
    return this.count;
  }

  /** Runs `task` after every task queued before it has settled; resolves or rejects with `task`'s own outcome. */
  run<T>(task: () => T | Promise<T>): Promise<T> {
    this.count++;
    const result = this.tail.then(task);
    this.tail = result.then(
      () => this.settled(),
      () => this.settled(),
    );
    return result;
  }

  /** Resolves once every task queued so far has settled (it never rejects). */
  idle(): Promise<void> {
    return this.tail;
  }

  private settled(): void {
    this.count--;
  }
}
