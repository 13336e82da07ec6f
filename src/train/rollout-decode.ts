/**
 * The training rollouts' decoding loop (GpuTrainableModel.generate): one call's requests on an engine of B cache
 * slots, seated in order by the scheduler that the page's generator uses (src/policies/llm/prefix-scheduler.ts), so
 * both group prompts that share a prefix alike. Unlike the generator (a queue that calls join at any time), the
 * requests are all known at the start and the loop runs until every one has ended; a slot freed by a reply that
 * ended takes the next request at once.
 *
 * Step k feeds every seated sequence its pending ids (the prompt past its kept prefix, then its last token) and draws
 * its token with key (seed, 0, k): a draw depends only on its request, never on the batch or the slot. Sequences with
 * different sampling settings take separate `sample` calls in the same step. `signal` is checked before every step
 * (and passed to the engine, which checks it between prefill pieces); `onTokens(n)` hears after every step how many
 * tokens it drew. A failed or aborted step frees every seated slot and forgets its cache, then rejects.
 */
import type { DecodeEngine } from '../policies/llm/batched-generator.ts';
import { bySampling, type SlotScheduler } from '../policies/llm/prefix-scheduler.ts';
import type { GenerateOptions, GenerateRequest } from './policy-model.ts';

export interface RolloutDecodeOptions extends GenerateOptions {
  /** Key of what the engine computes with (cache reuse across calls needs the same key). */
  key: string;
  /** Token ids that end a reply (kept as its last token). */
  endTokens: ReadonlySet<number>;
  /** Most tokens per forward (prompts go in pieces, each its own submit). */
  prefillChunk: number;
}

/** A request's reply: the drawn ids (an end token kept), their log-probabilities, and the prompt tokens computed. */
export interface DecodedReply {
  tokenIds: number[];
  logProbs: number[];
  prefillTokens: number;
}

interface Seated {
  reply: DecodedReply;
  request: GenerateRequest;
  slot: number;
  /** Most new tokens: the request's within the slot's context. */
  limit: number;
  /** Ids the next step feeds. */
  pending: readonly number[];
}

/** Decodes `requests` (checked by the caller) until each has ended; replies in the requests' order. */
export async function decodeRollouts(engine: DecodeEngine, scheduler: SlotScheduler, requests: readonly GenerateRequest[], options: RolloutDecodeOptions): Promise<DecodedReply[]> {
  const context = engine.plan.options.context;
  const replies: DecodedReply[] = requests.map(() => ({ tokenIds: [], logProbs: [], prefillTokens: 0 }));
  const live: Seated[] = [];
  let next = 0;
  try {
    for (;;) {
      options.signal?.throwIfAborted();
      next = seatInOrder(engine, scheduler, requests, replies, next, live, context, options.key);
      if (live.length === 0) break; // nothing feeding: no request waits, so every one has been seated and ended
      const drawn = live.length;
      for (const { sampling, items } of bySampling(live, (s) => s.request)) {
        const inputs = items.map((s) => ({ slot: s.slot, ids: s.pending, key: { seed: s.request.seed, sequence: 0, step: s.reply.tokenIds.length } }));
        const sampled = await engine.sample(inputs, sampling, { maxTokensPerForward: options.prefillChunk, signal: options.signal });
        items.forEach((s, i) => {
          scheduler.fed(engine, s.slot, s.pending);
          const token = sampled.tokens[i];
          s.reply.tokenIds.push(token);
          s.reply.logProbs.push(sampled.logprobs[i]);
          s.pending = [token];
          if (options.endTokens.has(token) || s.reply.tokenIds.length >= s.limit) {
            live.splice(live.indexOf(s), 1);
            scheduler.release(s.slot);
          }
        });
      }
      options.onTokens?.(drawn);
    }
  } catch (e) {
    for (const s of live.splice(0)) scheduler.fail(s.slot); // the engine's lengths for these slots are stale
    throw e;
  }
  return replies;
}

/**
 * Seats requests from `next` on, in order, while a slot is free, stopping at the first that should wait for a prefix
 * being fed in the coming step (the scheduler's rule); a request with nothing to draw ends at once. Returns the next
 * request to seat.
 */
function seatInOrder(engine: DecodeEngine, scheduler: SlotScheduler, requests: readonly GenerateRequest[], replies: DecodedReply[], next: number, live: Seated[], context: number, key: string): number {
  while (next < requests.length && scheduler.freeSlots > 0) {
    const request = requests[next];
    const ids = request.promptTokenIds;
    const limit = Math.min(request.maxNewTokens, context - ids.length);
    if (limit > 0) {
      const plan = scheduler.plan(engine, key, ids, live);
      if (plan.kind === 'wait') break;
      const { slot, pending } = scheduler.seat(engine, key, ids, plan);
      replies[next].prefillTokens = pending.length;
      live.push({ reply: replies[next], request, slot, limit, pending });
    }
    next++;
  }
  return next;
}
