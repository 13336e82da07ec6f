/**
 * KV reuse across turns: what each cache slot of a decoding engine holds, so a new prompt prefills only the tokens
 * after the longest prefix it shares with a slot (a later turn of the same episode: the new observation and the
 * chat template's glue; another episode: at least the system prompt).
 *
 * A slot holds the ids fed to it, in order, and the key of what computed them (the weights, the adapter, LoRA on or
 * off). Reuse is refused when the key differs or the engine's write count for the slot is not the one recorded after
 * this holder's own last change (someone else reset or wrote the slot: a training forward, an aborted step), so a
 * stale cache is never read — also when the other writer left the slot at the very length recorded. The
 * prefix is found by comparing ids, never by assuming the new prompt extends the old one, so it stays right whatever
 * the chat template does to earlier turns (Qwen3 drops the `<think>` blocks of past replies) and whatever came last:
 * the last sampled token of a reply was never fed to the engine, so the slot simply does not hold it.
 *
 * At least one token of a prompt is always fed (the engine returns the logits of the last token fed), so the kept
 * prefix is at most the prompt's length − 1. The engine then appends at the kept length (`rewind`), overwriting what
 * was cached beyond it.
 *
 * Sharing between slots: a prompt whose longest shared prefix is in ANOTHER slot (concurrent episodes share the
 * system prompt; a GRPO group shares its whole prompt) takes a copy of those cache rows (`claimCopy`, the engine's
 * `copyPrefix`) instead of prefilling them again. `sharedOnceFed` tells a caller whether a prompt should wait one
 * step for a prefix that another slot is being fed right now.
 */

/**
 * Fewest prompt tokens worth a copy between slots, or a wait of one step for a prefix being prefilled: below it the
 * prefill is cheaper than the extra step's latency.
 */
export const MIN_SHARED_PREFIX = 32;

/** The part of an engine a slot claim touches (QwenEngine has it). */
export interface SlotEngine {
  /** Tokens in the slot's cache. */
  length(slot: number): number;
  /** Changes made to the slot's cache so far (reset, rewind, a copy into it, a step feeding it). */
  writeCount(slot: number): number;
  reset(slot: number): void;
  /** Keeps the first `length` cached tokens of the slot. */
  rewind(slot: number, length: number): void;
}

/** An engine that can copy a slot's cached prefix into another slot (QwenEngine.copyPrefix). */
export interface CopyingSlotEngine extends SlotEngine {
  copyPrefix(from: number, to: number, length: number): void;
}

interface Held {
  /** What computed the cache (null: nothing trustworthy is held). */
  key: string | null;
  ids: number[];
  /** The engine's write count for the slot after this holder's last change to it. */
  writes: number;
}

export class PrefixSlots {
  private readonly held: Held[];

  constructor(readonly slots: number) {
    if (!Number.isInteger(slots) || slots < 1) throw new RangeError(`PrefixSlots: slots must be a positive integer, got ${slots}`);
    this.held = Array.from({ length: slots }, () => ({ key: null, ids: [], writes: -1 }));
  }

  /** Tokens of `ids` a claim of `slot` under `key` would keep (0 when the key differs or the engine disagrees). */
  shared(engine: SlotEngine, slot: number, key: string, ids: readonly number[]): number {
    return this.sharedWith(engine, slot, key, [], ids);
  }

  /** Like `shared`, once the engine has been fed `pending` in that slot (a prefill under way). */
  sharedOnceFed(engine: SlotEngine, slot: number, key: string, pending: readonly number[], ids: readonly number[]): number {
    return this.sharedWith(engine, slot, key, pending, ids);
  }

  private sharedWith(engine: SlotEngine, slot: number, key: string, pending: readonly number[], ids: readonly number[]): number {
    const h = this.held[slot];
    if (h.key !== key || engine.writeCount(slot) !== h.writes || engine.length(slot) !== h.ids.length) return 0;
    const held = h.ids.length;
    const most = Math.min(held + pending.length, ids.length - 1);
    let n = 0;
    while (n < most && (n < held ? h.ids[n] : pending[n - held]) === ids[n]) n++;
    return n;
  }

  /** The slot other than `except` whose cache shares the longest prefix with `ids` (null when none shares any). */
  longest(engine: SlotEngine, key: string, ids: readonly number[], except: number): { slot: number; shared: number } | null {
    let found: { slot: number; shared: number } | null = null;
    for (let slot = 0; slot < this.slots; slot++) {
      if (slot === except) continue;
      const shared = this.shared(engine, slot, key, ids);
      if (shared > 0 && shared > (found?.shared ?? 0)) found = { slot, shared };
    }
    return found;
  }

  /**
   * The slot of `free` whose cache serves `ids` best: the longest shared prefix; among equals, the one holding the
   * fewest tokens (it loses the least for other prompts).
   */
  best(engine: SlotEngine, free: readonly number[], key: string, ids: readonly number[]): number {
    if (free.length === 0) throw new RangeError('PrefixSlots.best: no free slot');
    let bestSlot = free[0];
    let bestShared = -1;
    for (const slot of free) {
      const n = this.shared(engine, slot, key, ids);
      if (n > bestShared || (n === bestShared && this.held[slot].ids.length < this.held[bestSlot].ids.length)) {
        bestSlot = slot;
        bestShared = n;
      }
    }
    return bestSlot;
  }

  /**
   * Takes `slot` for a prompt computed under `key`: keeps the shared prefix in the engine (rewinds it there) and
   * returns how many tokens were kept; feed `ids.slice(kept)` next and report it with `fed`.
   */
  claim(engine: SlotEngine, slot: number, key: string, ids: readonly number[]): number {
    const kept = this.shared(engine, slot, key, ids);
    if (kept > 0) engine.rewind(slot, kept);
    else engine.reset(slot);
    this.held[slot] = { key, ids: ids.slice(0, kept), writes: engine.writeCount(slot) };
    return kept;
  }

  /**
   * Takes `slot` for a prompt computed under `key` with the first `length` tokens of `from`'s cache copied in (the
   * engine records the copy); returns `length`, the tokens kept. `from` must share `length` tokens (`longest`).
   */
  claimCopy(engine: CopyingSlotEngine, from: number, slot: number, key: string, ids: readonly number[], length: number): number {
    if (length < 1 || this.shared(engine, from, key, ids) < length) throw new RangeError(`PrefixSlots.claimCopy: slot ${from} does not hold ${length} tokens of the prompt`);
    engine.copyPrefix(from, slot, length);
    this.held[slot] = { key, ids: ids.slice(0, length), writes: engine.writeCount(slot) };
    return length;
  }

  /** The engine appended `ids` to the slot's cache (the step that fed them has ended). */
  fed(engine: SlotEngine, slot: number, ids: readonly number[]): void {
    const h = this.held[slot];
    for (const id of ids) h.ids.push(id);
    h.writes = engine.writeCount(slot);
  }

  /** The slot's cache can no longer be trusted (a step failed midway). */
  forget(slot: number): void {
    this.held[slot] = { key: null, ids: [], writes: -1 };
  }

  /** Every slot's (the weights or the adapter changed, a training forward wrote the caches, a new engine). */
  forgetAll(): void {
    for (let s = 0; s < this.slots; s++) this.forget(s);
  }
}
