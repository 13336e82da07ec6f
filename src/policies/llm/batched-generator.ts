/**
 * Continuous batching of `generate` calls on one engine of B cache slots: every call (an episode's turn, from Watch,
 * Evaluate or the CLI) waits in a queue, takes a free slot, and from then on advances with every other live
 * sequence — one `engine.sample` per token for all of them (per sampling setting), a newcomer's prompt (prefill)
 * packed in the same call as the others' single tokens (decode). A reply that ends frees its slot at once for the
 * next call in the queue.
 *
 * KV reuse (prefix-slots.ts, scheduled by prefix-scheduler.ts, the rule training rollouts use too): a call takes the
 * free slot whose cache shares the longest prefix with its prompt, under the key of what the engine computes with,
 * and prefills only the rest; each `Generation` says how many prompt tokens it computed (`prefillTokens`), so a
 * multi-turn episode's prefill grows linearly with turns. When another slot (live or free) shares a longer prefix,
 * the call takes a copy of those cache rows; when a live sequence is being fed a longer shared prefix in the coming
 * step (episodes that start together share their system prompt), the call waits that one step and copies it, so the
 * prefix is computed once, not once per episode.
 *
 * Variants: the engine computes with one adapter setting at a time (the base, or one LoRA adapter). A call names its
 * variant; live sequences all share one, and `variant.prepare()` (make the engine ready, return the cache key) runs
 * whenever a batch starts from empty, for the queue's first call. Calls are admitted in the order they came, so none
 * waits forever.
 *
 * Determinism: token k of a call is drawn with the key (seed, 0, k) and every row of a forward depends only on its
 * own sequence, so a reply depends on its call alone, never on which others shared its steps or what its slot held.
 *
 * Cancel: a call whose `signal` is aborted, or whose `onToken` throws (the evaluation's cancel does), leaves the
 * batch before the next step and rejects with that reason; the others go on. A queued call whose signal aborts
 * leaves the queue and rejects at once, without waiting for a slot. An engine error rejects every live
 * call and forgets their slots' caches (the engine's lengths are then stale).
 */
import type { QwenEngine } from '../../gpu/engine/qwen-engine.ts';
import type { Generate, GenerateOptions, Generation } from './llm-policy.ts';
import { bySampling, SlotScheduler } from './prefix-scheduler.ts';

/** What the generator uses of an engine (QwenEngine; a fake in tests). */
export type DecodeEngine = Pick<QwenEngine, 'length' | 'writeCount' | 'reset' | 'rewind' | 'copyPrefix' | 'sample'> & { readonly plan: { readonly options: { readonly batch: number; readonly context: number } } };

/** An adapter setting calls may share a batch under. */
export interface Variant {
  /** Calls with the same name share steps. */
  readonly name: string;
  /** Makes the engine compute this variant; returns the key of what it computes with (for cache reuse). */
  prepare(): Promise<string>;
}

export interface GenerateCall extends GenerateOptions {
  /** Leaves the batch before the next step (the call rejects with the signal's reason). */
  signal?: AbortSignal;
}

/** Counts of the decoder's work so far. */
export interface BatchStats {
  /** Engine steps taken (each one `sample` call per sampling setting). */
  steps: number;
  /** Sum over steps of the sequences advanced: `rows / steps` is the mean batch. */
  rows: number;
  /** Most sequences advanced in one step. */
  maxBatch: number;
  newTokens: number;
  /** Prompt tokens of every call. */
  promptTokens: number;
  /** Prompt tokens actually computed (the rest were reused from the slots' caches). */
  prefillTokens: number;
}

export interface BatchedGeneratorOptions {
  /** The engine in use (a getter: the host may replace it after a device loss; call `forgetCaches` then). */
  engine: () => DecodeEngine;
  /** Token ids that end a reply (kept as its last token). */
  endTokens: readonly number[];
  /** The reply's text from its ids (end token excluded). */
  decode(ids: readonly number[]): string;
  /** Most tokens per forward (`SubmitOptions.maxTokensPerForward`): long prompts go in pieces, each its own submit. */
  prefillChunk?: number;
  /** Variant of calls that name none (default: the engine as it is, key 'base'). */
  defaultVariant?: Variant;
}

interface Call {
  promptIds: readonly number[];
  options: GenerateCall;
  variant: Variant;
  resolve: (g: Generation) => void;
  reject: (e: unknown) => void;
}

interface Live {
  call: Call;
  slot: number;
  /** Most new tokens: the call's limit within the slot's context. */
  limit: number;
  /** Ids to feed at the next step: the prompt past the reused prefix, then the last token drawn. */
  pending: readonly number[];
  prefillTokens: number;
  tokenIds: number[];
  logProbs: number[];
  started: number;
  prefillEnd: number;
}

const ENGINE_AS_IS: Variant = { name: 'base', prepare: async () => 'base' };

/** A macrotask's pause: episodes whose replies just ended step their environments and may ask again. */
const yieldTurn = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

export class BatchedGenerator {
  readonly stats: BatchStats = { steps: 0, rows: 0, maxBatch: 0, newTokens: 0, promptTokens: 0, prefillTokens: 0 };
  private readonly queue: Call[] = [];
  private readonly live: Live[] = [];
  private readonly ends: ReadonlySet<number>;
  private scheduler: SlotScheduler | null = null;
  private current: { variant: Variant; key: string } | null = null;
  private pumping: Promise<void> | null = null;
  private readonly idleTasks: Array<() => void> = [];

  constructor(private readonly options: BatchedGeneratorOptions) {
    this.ends = new Set(options.endTokens);
  }

  /** B: sequences decoded together. */
  get batch(): number {
    return this.options.engine().plan.options.batch;
  }

  /** S: positions of one slot (prompt + reply). */
  get contextTokens(): number {
    return this.options.engine().plan.options.context;
  }

  /** The `Generate` of a policy under `variant` (default: the default variant). */
  generateFor(variant: Variant = this.options.defaultVariant ?? ENGINE_AS_IS): Generate {
    return (promptIds, options) => this.generate(promptIds, options, variant);
  }

  /** One call: resolves with its reply when it ends (end token, its limit, or the context's end). */
  generate(promptIds: readonly number[], options: GenerateCall, variant: Variant = this.options.defaultVariant ?? ENGINE_AS_IS): Promise<Generation> {
    return new Promise<Generation>((resolve, reject) => {
      if (promptIds.length === 0) return reject(new RangeError('The prompt is empty.'));
      const context = this.contextTokens;
      if (promptIds.length >= context) return reject(new RangeError(`The prompt (${promptIds.length} tokens) fills the model's context of ${context} tokens.`));
      const call: Call = { promptIds, options, variant, resolve, reject };
      this.queue.push(call);
      const signal = options.signal;
      if (signal) {
        // A queued call leaves the queue the moment it is cancelled; a live one leaves before the next step.
        const leaveQueue = (): void => {
          const at = this.queue.indexOf(call);
          if (at >= 0) this.queue.splice(at, 1)[0].reject(signal.reason);
        };
        if (signal.aborted) return leaveQueue();
        signal.addEventListener('abort', leaveQueue, { once: true });
        const { resolve: done, reject: fail } = call;
        call.resolve = (g) => {
          signal.removeEventListener('abort', leaveQueue);
          done(g);
        };
        call.reject = (e) => {
          signal.removeEventListener('abort', leaveQueue);
          fail(e);
        };
      }
      this.pumping ??= this.pump();
    });
  }

  /**
   * Runs `task` with no call live: at once when idle, else once the batch has drained (no call is admitted while a
   * task waits). A host frees or replaces the engine this way, never under a step.
   */
  whenIdle(task: () => void): void {
    if (this.live.length === 0 && this.pumping === null) task();
    else this.idleTasks.push(task);
  }

  /** Forgets every slot's cache: the engine was replaced, or its weights or adapter changed under the same key. */
  forgetCaches(): void {
    this.scheduler?.forgetAll();
    this.current = null;
  }

  /** Runs steps while any call is live or queued; one pump at a time. */
  private async pump(): Promise<void> {
    try {
      await this.pumpSteps();
    } finally {
      this.pumping = null; // at once, so a `whenIdle` right after the last call's end runs its task at once
    }
  }

  private async pumpSteps(): Promise<void> {
    await Promise.resolve(); // calls made in the same tick join the first step
    while (this.queue.length > 0 || this.live.length > 0 || this.idleTasks.length > 0) {
      if (this.live.length === 0) {
        for (const task of this.idleTasks.splice(0)) task();
        if (this.queue.length === 0) break;
        if (!(await this.switchVariant())) continue;
      }
      this.admit();
      try {
        await this.step();
      } catch (e) {
        this.failLive(e);
      }
      await yieldTurn();
    }
  }

  /** Rejects every live call with `e` and forgets their slots' caches (the engine's lengths are then stale). */
  private failLive(e: unknown): void {
    this.current = null; // the next batch prepares the engine again (a lost device is recovered there)
    for (const l of this.live.splice(0)) {
      this.scheduler!.fail(l.slot);
      l.call.reject(e);
    }
  }

  /** With the batch empty: makes the engine ready for the first queued call's variant. False when its prepare failed. */
  private async switchVariant(): Promise<boolean> {
    const variant = this.queue[0].variant;
    const engine = this.options.engine();
    if (this.scheduler === null || this.scheduler.batch !== engine.plan.options.batch) this.scheduler = new SlotScheduler(engine.plan.options.batch);
    // Every batch that starts from empty prepares the engine (cheap when nothing changed; a released engine is
    // rebuilt and a lost device recovered there, as before every turn of one-at-a-time decoding).
    try {
      this.current = { variant, key: await variant.prepare() };
      return true;
    } catch (e) {
      this.current = null;
      // Every queued call of this variant fails alike.
      for (let i = this.queue.length - 1; i >= 0; i--) if (this.queue[i].variant === variant) this.queue.splice(i, 1)[0].reject(e);
      return false;
    }
  }

  /**
   * Queued calls of the current variant into free slots, in the order they came, each where the scheduler says; the
   * first that should wait for a prefix being fed in the coming step stops the admission until that step is done.
   * A call with no tokens to draw (maxNewTokens 0) ends at once and touches no slot.
   */
  private admit(): void {
    const engine = this.options.engine();
    const scheduler = this.scheduler!;
    const { variant, key } = this.current!;
    while (this.idleTasks.length === 0 && this.queue.length > 0 && scheduler.freeSlots > 0 && this.queue[0].variant.name === variant.name) {
      const call = this.queue[0];
      if (call.options.signal?.aborted) {
        this.queue.shift();
        call.reject(call.options.signal.reason);
        continue;
      }
      const ids = call.promptIds;
      const limit = Math.min(call.options.maxNewTokens, this.contextTokens - ids.length);
      const now = performance.now();
      if (limit <= 0) {
        this.queue.shift();
        this.stats.promptTokens += ids.length;
        this.finish({ call, slot: -1, limit, pending: [], prefillTokens: 0, tokenIds: [], logProbs: [], started: now, prefillEnd: now });
        continue;
      }
      const plan = scheduler.plan(engine, key, ids, this.live);
      if (plan.kind === 'wait') break;
      this.queue.shift();
      const { slot, pending } = scheduler.seat(engine, key, ids, plan);
      this.live.push({ call, slot, limit, pending, prefillTokens: pending.length, tokenIds: [], logProbs: [], started: now, prefillEnd: now });
      this.stats.promptTokens += ids.length;
      this.stats.prefillTokens += pending.length;
    }
  }

  /** One step of every live sequence (one `sample` per sampling setting); cancelled calls leave first. */
  private async step(): Promise<void> {
    for (const l of [...this.live]) {
      const signal = l.call.options.signal;
      if (signal?.aborted) this.drop(l, signal.reason);
    }
    if (this.live.length === 0) return;
    this.stats.steps++;
    this.stats.rows += this.live.length;
    this.stats.maxBatch = Math.max(this.stats.maxBatch, this.live.length);
    const engine = this.options.engine();
    for (const { sampling, items: group } of bySampling(this.live, (l) => l.call.options)) {
      const inputs = group.map((l) => ({ slot: l.slot, ids: l.pending, key: { seed: l.call.options.seed >>> 0, sequence: 0, step: l.tokenIds.length } }));
      let sampled;
      try {
        sampled = await engine.sample(inputs, sampling, { maxTokensPerForward: this.options.prefillChunk });
      } catch (e) {
        this.failLive(e);
        return;
      }
      const now = performance.now();
      group.forEach((l, i) => {
        this.scheduler!.fed(engine, l.slot, l.pending);
        const token = sampled.tokens[i];
        if (l.tokenIds.length === 0) l.prefillEnd = now;
        l.tokenIds.push(token);
        l.logProbs.push(sampled.logprobs[i]);
        l.pending = [token];
        try {
          l.call.options.onToken?.(l.tokenIds.length);
        } catch (e) {
          this.drop(l, e);
          return;
        }
        if (this.ends.has(token) || l.tokenIds.length >= l.limit) this.finish(l);
      });
    }
  }

  /** Takes `l` out of the batch; its slot keeps what was fed (a later call may reuse it). */
  private release(l: Live): void {
    const at = this.live.indexOf(l);
    if (at < 0) return; // a call that ended at admission holds no slot
    this.live.splice(at, 1);
    this.scheduler!.release(l.slot);
  }

  private drop(l: Live, reason: unknown): void {
    this.release(l);
    l.call.reject(reason);
  }

  private finish(l: Live): void {
    this.release(l);
    this.stats.newTokens += l.tokenIds.length;
    const last = l.tokenIds.at(-1);
    const shown = last !== undefined && this.ends.has(last) ? l.tokenIds.slice(0, -1) : l.tokenIds;
    const ended = performance.now();
    l.call.resolve({
      tokenIds: l.tokenIds,
      text: this.options.decode(shown),
      logProbs: l.logProbs,
      prefillSeconds: (l.prefillEnd - l.started) / 1000,
      decodeSeconds: (ended - l.prefillEnd) / 1000,
      prefillTokens: l.prefillTokens,
    });
  }
}
