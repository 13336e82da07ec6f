/**
 * The one prefix-sharing scheduler of an engine's B cache slots, for generation (batched-generator.ts: Watch,
 * Evaluate, the CLI) and for training rollouts (src/train/rollout-decode.ts behind gpu-model.ts). It decides which
 * free slot a prompt takes, where the prompt's cached prefix comes from, and when the prompt should wait one step for
 * a longer prefix another slot is being fed; PrefixSlots (prefix-slots.ts) says what each slot holds.
 *
 * The rule, for prompts seated in the order they came (`plan`):
 *   slot  = the free slot whose cache shares the longest prefix with the prompt (PrefixSlots.best);
 *   own   = what that slot shares; other = the longest any other slot's cache shares (live or free);
 *   now   = other when other >= own + MIN_SHARED_PREFIX (a copy of those rows), else own (the slot rewound);
 *   soon  = the longest prefix a sequence fed in the coming step will share once fed (`Feeding`);
 *   wait one step when soon >= now + MIN_SHARED_PREFIX, else seat the prompt now, keeping `now` tokens.
 * A caller seats in order and stops at the first prompt that waits (the ones after it wait too), so the grouping of
 * a set of prompts depends only on their order, and none waits forever: each wait is for a prefix at least
 * MIN_SHARED_PREFIX longer than the last, so a prompt of n tokens waits at most n / MIN_SHARED_PREFIX steps.
 *
 * The grouping this gives: every sequence seated so far can lead, so a prompt takes its prefix from the earlier
 * prompt that shares the most with it, and every shared prefix is computed once. With an empty engine and prompts
 * p_0 … p_n in order, let m_i be the longest prefix p_i shares with an earlier prompt (at most its length − 1):
 * p_i keeps 0 tokens when m_i < MIN_SHARED_PREFIX, else more than m_i − MIN_SHARED_PREFIX and at most m_i.
 * Why this and not "only the sequences fed at the first step lead" (what the training rollouts did until now): two
 * GRPO groups whose questions share a system prompt, [A, A, B, B]. With first-step leaders only, both B copied the
 * system prompt from A and each computed B's question itself; here the second B waits for the first and copies its
 * whole prompt, so B's question is computed once, as the generator always did.
 *
 * `bySampling` splits one step's sequences by sampling setting (one `sample` call each), greedy ones together
 * whatever their topP (greedy ignores it).
 */
import { MIN_SHARED_PREFIX, PrefixSlots, type CopyingSlotEngine, type SlotEngine } from './prefix-slots.ts';

/** A sequence that the coming step feeds `pending` in `slot` (a prompt's rest, or a reply's last token). */
export interface Feeding {
  readonly slot: number;
  readonly pending: readonly number[];
}

/** Where a prompt's prefix comes from (see the header). `kept`: prompt tokens not computed again. */
export type PrefixPlan =
  | { readonly kind: 'own'; readonly slot: number; readonly kept: number }
  | { readonly kind: 'copy'; readonly slot: number; readonly from: number; readonly kept: number }
  | { readonly kind: 'wait'; readonly from: number; readonly shared: number };

/** A prompt seated in a slot: feed it `pending` (the prompt past the kept prefix; never empty). */
export interface Seat {
  readonly slot: number;
  readonly pending: readonly number[];
}

export class SlotScheduler {
  readonly slots: PrefixSlots;
  /** Slots no sequence holds now, in the order they became free (their caches stay for reuse). */
  private readonly free: number[];

  constructor(readonly batch: number) {
    this.slots = new PrefixSlots(batch);
    this.free = Array.from({ length: batch }, (_, i) => i);
  }

  get freeSlots(): number {
    return this.free.length;
  }

  /** Where `ids` (a prompt computed under `key`) should take its prefix from now; needs a free slot. */
  plan(engine: SlotEngine, key: string, ids: readonly number[], feeding: readonly Feeding[]): PrefixPlan {
    const slot = this.slots.best(engine, this.free, key, ids);
    const own = this.slots.shared(engine, slot, key, ids);
    const other = this.slots.longest(engine, key, ids, slot);
    let soon: { from: number; shared: number } | null = null;
    for (const f of feeding) {
      const shared = this.slots.sharedOnceFed(engine, f.slot, key, f.pending, ids);
      if (shared > (soon?.shared ?? 0)) soon = { from: f.slot, shared };
    }
    const copy = other !== null && other.shared >= own + MIN_SHARED_PREFIX;
    const now = copy ? other.shared : own;
    if (soon !== null && soon.shared >= now + MIN_SHARED_PREFIX) return { kind: 'wait', from: soon.from, shared: soon.shared };
    return copy ? { kind: 'copy', slot, from: other.slot, kept: other.shared } : { kind: 'own', slot, kept: own };
  }

  /** Seats `ids` as `plan` says: takes the slot and rewinds its cache or copies the other slot's rows into it. */
  seat(engine: CopyingSlotEngine, key: string, ids: readonly number[], plan: Exclude<PrefixPlan, { kind: 'wait' }>): Seat {
    const at = this.free.indexOf(plan.slot);
    if (at < 0) throw new RangeError(`SlotScheduler.seat: slot ${plan.slot} is not free`);
    const kept = plan.kind === 'copy' ? this.slots.claimCopy(engine, plan.from, plan.slot, key, ids, plan.kept) : this.slots.claim(engine, plan.slot, key, ids);
    this.free.splice(at, 1);
    return { slot: plan.slot, pending: ids.slice(kept) };
  }

  /** The engine appended `ids` to the slot's cache (the step that fed them has ended). */
  fed(engine: SlotEngine, slot: number, ids: readonly number[]): void {
    this.slots.fed(engine, slot, ids);
  }

  /** The slot's sequence ended: the slot is free again and its cache stays for a later prompt. */
  release(slot: number): void {
    if (this.free.includes(slot)) throw new RangeError(`SlotScheduler.release: slot ${slot} is already free`);
    this.free.push(slot);
  }

  /** The slot's sequence failed midway: the slot is free again and its cache is not trusted. */
  fail(slot: number): void {
    this.slots.forget(slot);
    this.release(slot);
  }

  /** Forgets every slot's cache (the weights or the adapter changed, or someone else wrote the caches). */
  forgetAll(): void {
    this.slots.forgetAll();
  }
}

/** One step's sequences split by sampling setting, in order of first appearance (one `sample` call each). */
export function bySampling<T>(items: readonly T[], settingOf: (item: T) => { temperature: number; topP: number }): Array<{ sampling: { temperature: number; topP: number }; items: T[] }> {
  const groups = new Map<string, { sampling: { temperature: number; topP: number }; items: T[] }>();
  for (const item of items) {
    const { temperature, topP } = settingOf(item);
    const sampling = { temperature, topP: temperature > 0 ? topP : 1 };
    const key = `${sampling.temperature}|${sampling.topP}`;
    const group = groups.get(key);
    if (group) group.items.push(item);
    else groups.set(key, { sampling, items: [item] });
  }
  return [...groups.values()];
}
