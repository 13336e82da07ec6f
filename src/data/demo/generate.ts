/**
 * Seeded building blocks for the demo databases: people with distinct names, calendar dates, weighted and skewed
 * choices, and bulk inserts into a sql.js database. Everything draws from an `Rng` passed in, never from
 * Math.random or the clock, so one seed gives one database, byte for byte.
 *
 * Dates are ISO `YYYY-MM-DD` strings (SQLite's own date format), computed through UTC day numbers so no time zone
 * can shift them.
 */
import type { Database } from 'sql.js';
import type { SqlValue } from '../../sql/types.ts';
import { randomInt, shuffled, type Rng } from '../rng.ts';
import { FIRST_NAMES, LAST_NAMES } from './names.ts';

/** The demo data cannot be built as specified (a generator, a gold query or an ordering check failed). */
export class DemoDataError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DemoDataError';
  }
}

export interface Person {
  first: string;
  last: string;
}

/** An integer in [min, max], both inclusive. */
export function randomBetween(rng: Rng, min: number, max: number): number {
  return min + randomInt(rng, max - min + 1);
}

export function chance(rng: Rng, probability: number): boolean {
  return rng.next() < probability;
}

/** An index in [0, weights.length), drawn with probability proportional to its weight (weights ≥ 0, sum > 0). */
export function weightedIndex(rng: Rng, weights: readonly number[]): number {
  const total = weights.reduce((a, b) => a + b, 0);
  let r = rng.next() * total;
  for (let i = 0; i < weights.length; i++) {
    r -= weights[i];
    if (r < 0) return i;
  }
  // Rounding left r a hair above 0: the last item with a positive weight takes it.
  for (let i = weights.length - 1; i >= 0; i--) if (weights[i] > 0) return i;
  throw new RangeError('weightedIndex: all weights are zero');
}

export function weightedPick<T>(rng: Rng, items: readonly T[], weights: readonly number[]): T {
  return items[weightedIndex(rng, weights)];
}

/**
 * Zipf-like popularity for `n` items: the item of rank k (1-based, ranks in a seeded random order) weighs k^-exponent.
 * A few items are popular and most are not, as with real borrowers, buyers and books; it also keeps "the most …"
 * questions from ending in ties.
 */
export function popularityWeights(rng: Rng, n: number, exponent: number): number[] {
  const ranks = shuffled(rng, Array.from({ length: n }, (_, i) => i + 1));
  return ranks.map((k) => Math.pow(k, -exponent));
}

/** `count` people whose full names differ from each other and from every name in `taken` (updated in place). */
export function uniquePeople(rng: Rng, count: number, taken: Set<string>): Person[] {
  const people: Person[] = [];
  for (let tries = 0; people.length < count; tries++) {
    if (tries > count * 50) throw new DemoDataError(`uniquePeople: could not find ${count} distinct names`);
    const first = FIRST_NAMES[randomInt(rng, FIRST_NAMES.length)];
    const last = LAST_NAMES[randomInt(rng, LAST_NAMES.length)];
    const full = `${first} ${last}`;
    if (taken.has(full)) continue;
    taken.add(full);
    people.push({ first, last });
  }
  return people;
}

/** `first.last@domain`, lower case, ASCII letters only. */
export function emailOf(person: Person, domain: string): string {
  const clean = (s: string): string => s.toLowerCase().replace(/[^a-z]/g, '');
  return `${clean(person.first)}.${clean(person.last)}@${domain}`;
}

const MS_PER_DAY = 86_400_000;

/** Days since 1970-01-01 of an ISO date. */
export function dayOf(iso: string): number {
  const [y, m, d] = iso.split('-').map(Number);
  return Math.round(Date.UTC(y, m - 1, d) / MS_PER_DAY);
}

export function isoOfDay(day: number): string {
  return new Date(day * MS_PER_DAY).toISOString().slice(0, 10);
}

export function addDays(iso: string, days: number): string {
  return isoOfDay(dayOf(iso) + days);
}

/** A date in [from, to], both inclusive. */
export function randomDate(rng: Rng, from: string, to: string): string {
  return isoOfDay(randomBetween(rng, dayOf(from), dayOf(to)));
}

/** `count` distinct integers in [min, max] in the order drawn (throws if the range is too small). */
export function distinctIntegers(rng: Rng, count: number, min: number, max: number): number[] {
  if (max - min + 1 < count) throw new DemoDataError(`distinctIntegers: [${min}, ${max}] holds fewer than ${count} values`);
  const seen = new Set<number>();
  const out: number[] = [];
  while (out.length < count) {
    const v = randomBetween(rng, min, max);
    if (seen.has(v)) continue;
    seen.add(v);
    out.push(v);
  }
  return out;
}

/** Inserts `rows` (each with one value per column) into `table` through one prepared statement. */
export function insertRows(db: Database, table: string, columns: readonly string[], rows: readonly (readonly SqlValue[])[]): void {
  const placeholders = columns.map(() => '?').join(', ');
  const stmt = db.prepare(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${placeholders})`);
  try {
    for (const row of rows) {
      if (row.length !== columns.length) throw new DemoDataError(`insertRows: a row for ${table} has ${row.length} values, expected ${columns.length}`);
      stmt.run([...row]);
    }
  } finally {
    stmt.free();
  }
}
