/**
 * Tie links for the split: a gold SQL with ties (`Question.goldTies`, src/data/gold.ts) may legally return other
 * results than its stored one, and the ANSWER verifier accepts any of them. Such a legal result can be another
 * question's gold (Spider dev 229, "Which airline has the most flights?", has 12 airlines tied, and accepts the gold
 * of dev 193, "United Airlines"), or a legal result of another tie question. Two such questions in different splits
 * would let an answer learnt in train be accepted in eval, so the split joins them.
 *
 * Each question gets an envelope: the total number of items a legal result has (`size`) and the multiset of items
 * every legal result is drawn from (`items`). A question without ties has one legal result, so its items are its
 * rows; a question with ties draws `Σ take` rows from the union of its pools. Two questions can share a legal result
 * only if their sizes are equal and their item multisets have at least `size` items in common (a shared result is a
 * sub-multiset of both) — a necessary condition, so the rule may join more than needed, which only keeps more
 * questions together and never lets an answer straddle.
 *
 * Items follow the lenient verifier's shapes: a result with one row or one column is read as a flat list of cells (a
 * one-row and a one-column result with the same cells are one answer), anything else as rows with column order
 * ignored. Cells are keyed by their home key in answer-key.ts (text normalised, numbers on the 0.05 grid); a number
 * sitting on a grid boundary keeps only its home key here (answer-key.ts states the same limit for wide results).
 *
 * Only pairs with at least one tie question are compared (pairs without ties are joined by answer keys already),
 * pairwise within a database: Spider dev has 58 tie questions among ~90 per database, so this stays small.
 */
import type { SqlValue } from '../sql/types.ts';
import { cellKeys } from './answer-key.ts';
import { decodeValue } from './gold.ts';
import type { GoldTies } from './types.ts';

/** What the tie rule reads of a question. */
export interface TieInput {
  dbId: string;
  goldRows: ReadonlyArray<readonly SqlValue[]>;
  goldTies?: GoldTies;
}

interface Envelope {
  flat: boolean;
  size: number;
  items: Map<string, number>;
}

const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function homeKey(v: SqlValue): string {
  return cellKeys(v)[0];
}

function addItem(items: Map<string, number>, key: string): void {
  items.set(key, (items.get(key) ?? 0) + 1);
}

function rowItem(row: readonly SqlValue[]): string {
  return JSON.stringify(row.map(homeKey).sort(byCodeUnit));
}

/** The envelope of one question's legal results (header). */
function envelope(q: TieInput): Envelope {
  const width = q.goldRows[0]?.length ?? q.goldTies?.segments[0]?.pool[0]?.length ?? 0;
  const rows = q.goldTies ? q.goldTies.segments.flatMap((s) => s.pool.map((row) => row.map(decodeValue))) : q.goldRows.map((row) => [...row]);
  const resultRows = q.goldTies ? q.goldTies.segments.reduce((n, s) => n + s.take, 0) : q.goldRows.length;
  const flat = resultRows === 1 || width === 1;
  const items = new Map<string, number>();
  for (const row of rows) {
    if (flat) for (const cell of row) addItem(items, homeKey(cell));
    else addItem(items, rowItem(row));
  }
  return { flat, size: flat ? resultRows * width : resultRows, items };
}

/** Whether two envelopes can hold a common legal result (header): same shape and size, ≥ size items in common. */
function canShare(a: Envelope, b: Envelope): boolean {
  if (a.flat !== b.flat || a.size !== b.size) return false;
  let common = 0;
  for (const [key, count] of a.items) common += Math.min(count, b.items.get(key) ?? 0);
  return common >= a.size;
}

/**
 * Pairs of indices into `questions` (same database, at least one with ties) that may share a legal result; only
 * questions `include` accepts are considered (the split passes its curated databases).
 */
export function tieLinks(questions: readonly TieInput[], include: (q: TieInput) => boolean = () => true): Array<[number, number]> {
  const byDb = new Map<string, number[]>();
  questions.forEach((q, i) => {
    if (!include(q)) return;
    const list = byDb.get(q.dbId);
    if (list) list.push(i);
    else byDb.set(q.dbId, [i]);
  });
  const links: Array<[number, number]> = [];
  for (const indices of byDb.values()) {
    const tied = indices.filter((i) => questions[i].goldTies !== undefined);
    if (tied.length === 0) continue;
    const envelopes = new Map(indices.map((i) => [i, envelope(questions[i])]));
    for (const t of tied) {
      for (const other of indices) {
        // A pair of two tie questions is seen twice; once is enough.
        if (other === t || (questions[other].goldTies !== undefined && other < t)) continue;
        if (canShare(envelopes.get(t) as Envelope, envelopes.get(other) as Envelope)) links.push([t, other]);
      }
    }
  }
  return links;
}
