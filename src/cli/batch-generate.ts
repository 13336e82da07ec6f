/**
 * Several episodes' turns decoded together on one engine: a `Generate` (the function `LlmPolicy` is given) that
 * queues each call, gives it a free cache slot of the engine's B, and advances every live sequence in lockstep — one
 * `engine.sample` per step for all of them, a newcomer's whole prompt (prefill) packed in the same step as the
 * others' single tokens (decode). Episodes play on as separate `LlmPolicy` turns, so prompts, parsing and the tool
 * protocol are the page's own; only the decoding is shared.
 *
 * Determinism: token k of a request is drawn with the key (seed, 0, k), as the page's one-slot generator
 * (src/workers/llm-generate.ts) and GpuTrainableModel draw it, and every row of a forward depends only on its own
 * sequence, so a reply depends on its request alone, never on which others shared its steps. Greedy is
 * temperature 0. Requests with different sampling settings share a step in separate `sample` calls.
 *
 * Each generation reports its prefill time (until its first token) and its decode time (the rest), as the page does;
 * in a batch both include the other sequences' work of the same steps.
 */
import type { QwenEngine } from '../gpu/engine/qwen-engine.ts';
import type { Tokenizer } from '../model/tokenizer.ts';
import type { Generate, GenerateOptions, Generation } from '../policies/llm/llm-policy.ts';

interface Request {
  promptIds: readonly number[];
  options: GenerateOptions;
  resolve(g: Generation): void;
  reject(e: unknown): void;
}

interface Live {
  request: Request;
  slot: number;
  /** Most new tokens: the request's limit within the slot's context. */
  limit: number;
  /** Ids to feed at the next step: the prompt, then the last token drawn. */
  pending: readonly number[];
  tokenIds: number[];
  logProbs: number[];
  started: number;
  prefillEnd: number;
}

/** Counts of the decoder's work so far (for the progress line and the report). */
export interface BatchStats {
  /** Engine steps taken (each one `sample` call per sampling setting). */
  steps: number;
  /** Sum over steps of the sequences advanced: `rows / steps` is the mean batch. */
  rows: number;
  /** Most sequences advanced in one step. */
  maxBatch: number;
  newTokens: number;
  promptTokens: number;
}

export class BatchDecoder {
  readonly stats: BatchStats = { steps: 0, rows: 0, maxBatch: 0, newTokens: 0, promptTokens: 0 };
  private readonly queue: Request[] = [];
  private readonly live: Live[] = [];
  private readonly free: number[];
  private readonly ends: ReadonlySet<number>;
  private pumping = false;

  constructor(
    private readonly engine: QwenEngine,
    private readonly tokenizer: Tokenizer,
  ) {
    this.free = Array.from({ length: engine.plan.options.batch }, (_, i) => i);
    this.ends = new Set([tokenizer.special.imEnd, tokenizer.special.endOfText]);
  }

  /** S: positions of one slot (prompt + reply). */
  get contextTokens(): number {
    return this.engine.plan.options.context;
  }

  /** The `Generate` of one or many policies: calls made while others run join their steps. */
  readonly generate: Generate = (promptIds, options) =>
    new Promise<Generation>((resolve, reject) => {
      const room = this.contextTokens - promptIds.length;
      if (promptIds.length === 0) return reject(new RangeError('The prompt is empty.'));
      if (room < 1) return reject(new RangeError(`The prompt (${promptIds.length} tokens) fills the model's context of ${this.contextTokens} tokens.`));
      this.queue.push({ promptIds, options, resolve, reject });
      void this.pump();
    });

  /** Runs steps while any sequence is live or queued; one pump at a time. */
  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      // Let the calls made in the same tick (episodes starting together) join the first step.
      await new Promise((resolve) => setImmediate(resolve));
      while (this.queue.length > 0 || this.live.length > 0) {
        this.admit();
        try {
          await this.step();
        } catch (e) {
          for (const l of this.live.splice(0)) {
            this.free.push(l.slot);
            l.request.reject(e);
          }
        }
        // Let the episodes whose replies just ended step their environments and ask again before the next step.
        await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      this.pumping = false;
    }
  }

  /** Queued requests into free slots, in the order they came. */
  private admit(): void {
    while (this.queue.length > 0 && this.free.length > 0) {
      const request = this.queue.shift()!;
      const slot = this.free.shift()!;
      this.engine.reset(slot);
      const limit = Math.min(request.options.maxNewTokens, this.contextTokens - request.promptIds.length);
      const now = performance.now();
      const live: Live = { request, slot, limit, pending: request.promptIds, tokenIds: [], logProbs: [], started: now, prefillEnd: now };
      this.stats.promptTokens += request.promptIds.length;
      if (limit <= 0) this.finish(live);
      else this.live.push(live);
    }
  }

  /** One lockstep step of every live sequence (one `sample` per sampling setting). */
  private async step(): Promise<void> {
    const groups = new Map<string, Live[]>();
    for (const l of this.live) {
      const { temperature, topP } = l.request.options;
      const key = `${temperature}|${temperature > 0 ? topP : 1}`;
      groups.set(key, [...(groups.get(key) ?? []), l]);
    }
    this.stats.steps++;
    this.stats.rows += this.live.length;
    this.stats.maxBatch = Math.max(this.stats.maxBatch, this.live.length);
    for (const group of groups.values()) {
      const { temperature, topP } = group[0].request.options;
      const inputs = group.map((l) => ({ slot: l.slot, ids: l.pending, key: { seed: l.request.options.seed >>> 0, sequence: 0, step: l.tokenIds.length } }));
      const sampled = await this.engine.sample(inputs, { temperature, topP: temperature > 0 ? topP : 1 });
      const now = performance.now();
      group.forEach((l, i) => {
        const token = sampled.tokens[i];
        if (l.tokenIds.length === 0) l.prefillEnd = now;
        l.tokenIds.push(token);
        l.logProbs.push(sampled.logprobs[i]);
        l.pending = [token];
        if (this.ends.has(token) || l.tokenIds.length >= l.limit) this.finish(l);
      });
    }
  }

  private finish(l: Live): void {
    const at = this.live.indexOf(l);
    if (at >= 0) this.live.splice(at, 1);
    this.free.push(l.slot);
    this.free.sort((a, b) => a - b);
    this.stats.newTokens += l.tokenIds.length;
    const last = l.tokenIds.at(-1);
    const shown = last !== undefined && this.ends.has(last) ? l.tokenIds.slice(0, -1) : l.tokenIds;
    const ended = performance.now();
    l.request.resolve({
      tokenIds: l.tokenIds,
      text: this.tokenizer.decode(shown),
      logProbs: l.logProbs,
      prefillSeconds: (l.prefillEnd - l.started) / 1000,
      decodeSeconds: (ended - l.prefillEnd) / 1000,
    });
  }
}
