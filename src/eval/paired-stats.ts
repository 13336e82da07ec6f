/**
 * Differences you can trust between two runs over the same questions: the paired difference in success with
 * McNemar's exact test, and the paired difference in mean return with a seeded bootstrap interval, overall and per
 * difficulty, said in plain words ("+6 of 34, p = 0.03"). Compare and `sqlenv compare` both print these figures.
 *
 * How to think about it: runs are paired by question (dataset and question id). On a question a run "solved" it
 * when at least half of its episodes there succeeded (one episode: when it succeeded), as Compare's outcome matrix
 * counts it. Only the discordant questions carry information about a difference in success: b = A solved and B
 * did not, c = B solved and A did not. Under "no difference" each discordant question is a fair coin, so the
 * exact two-sided p is min(1, 2·P(X ≤ min(b, c))) with X ~ Binomial(b + c, 1/2) (McNemar's exact, or conditional
 * binomial, test). For return, each question gives d = B's mean return − A's; the interval is the percentile
 * bootstrap of mean(d), resampling questions with replacement from a seeded generator, so one seed gives one
 * interval.
 */
import { createRng, type Rng } from '../data/rng.ts';
import { DIFFICULTIES, type Difficulty } from '../data/types.ts';
import type { EpisodeRecord } from './transcript.ts';

/** `dataset/questionId`: what identifies a question across runs. */
export function questionKey(record: Pick<EpisodeRecord, 'dataset' | 'questionId'>): string {
  return `${record.dataset}/${record.questionId}`;
}

/** At least half of the episodes succeeded (and there was one). */
export function isSolved(successes: number, episodes: number): boolean {
  return episodes > 0 && 2 * successes >= episodes;
}

/**
 * McNemar's exact two-sided p for b questions only A solved and c only B solved: min(1, 2·P(X ≤ min(b, c))),
 * X ~ Binomial(b + c, 1/2); 1 when there is no discordant question. Summed in log space so n = b + c of any size
 * neither underflows (2^-n) nor overflows (C(n, k)).
 */
export function mcnemarExactP(b: number, c: number): number {
  if (!Number.isInteger(b) || !Number.isInteger(c) || b < 0 || c < 0) throw new RangeError(`mcnemarExactP: counts must be integers ≥ 0, got ${b} and ${c}.`);
  const n = b + c;
  if (n === 0) return 1;
  const k = Math.min(b, c);
  const logs: number[] = [];
  let logC = 0; // ln C(n, 0)
  for (let i = 0; i <= k; i++) {
    logs.push(logC - n * Math.LN2);
    logC += Math.log(n - i) - Math.log(i + 1);
  }
  const top = Math.max(...logs);
  const tail = Math.exp(top) * logs.reduce((s, l) => s + Math.exp(l - top), 0);
  return Math.min(1, 2 * tail);
}

export interface Interval {
  low: number;
  high: number;
}

/**
 * Percentile bootstrap interval of the mean of paired differences: `resamples` means of n values drawn with
 * replacement, their (1 − level)/2 and (1 + level)/2 quantiles. An empty input gives [0, 0].
 */
export function pairedBootstrapInterval(differences: readonly number[], rng: Rng, resamples = 2000, level = 0.95): Interval {
  const n = differences.length;
  if (n === 0) return { low: 0, high: 0 };
  const means = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += differences[Math.floor(rng.next() * n)];
    means[r] = sum / n;
  }
  means.sort();
  const at = (q: number): number => means[Math.min(resamples - 1, Math.max(0, Math.floor(q * resamples)))];
  return { low: at((1 - level) / 2), high: at((1 + level) / 2) };
}

/** One question as both runs played it. */
export interface PairedQuestion {
  key: string;
  difficulty: Difficulty;
  solvedA: boolean;
  solvedB: boolean;
  meanReturnA: number;
  meanReturnB: number;
  /** The seeds each run played the question with, sorted. */
  seedsA: number[];
  seedsB: number[];
}

export interface PairedStats {
  questions: number;
  /** Questions only A solved (McNemar's b) and only B solved (c). */
  onlyA: number;
  onlyB: number;
  /** McNemar's exact two-sided p. */
  p: number;
  /** Mean over questions of B's mean return − A's, and its bootstrap interval. */
  meanReturnDiff: number;
  interval: Interval;
}

export interface PairedComparison {
  overall: PairedStats;
  /** Difficulties with at least one question in common, in `DIFFICULTIES` order. */
  byDifficulty: Partial<Record<Difficulty, PairedStats>>;
  /** Why the figures may mislead: questions not in common, different seeds, other environment versions. */
  warnings: string[];
  /** The bootstrap's seed and resamples, so the interval can be reproduced. */
  seed: number;
  resamples: number;
}

interface Side {
  successes: number;
  returns: number;
  episodes: number;
  seeds: number[];
  difficulty: Difficulty;
}

function sides(records: readonly EpisodeRecord[]): Map<string, Side> {
  const out = new Map<string, Side>();
  for (const r of records) {
    const key = questionKey(r);
    const side = out.get(key) ?? { successes: 0, returns: 0, episodes: 0, seeds: [], difficulty: r.difficulty };
    side.successes += r.success ? 1 : 0;
    side.returns += r.episodeReturn;
    side.episodes += 1;
    side.seeds.push(r.seed);
    out.set(key, side);
  }
  return out;
}

/** The questions both runs played, sorted by key, each with how A and B did. */
export function pairQuestions(a: readonly EpisodeRecord[], b: readonly EpisodeRecord[]): { pairs: PairedQuestion[]; onlyInA: number; onlyInB: number } {
  const sideA = sides(a);
  const sideB = sides(b);
  const pairs: PairedQuestion[] = [];
  for (const [key, x] of sideA) {
    const y = sideB.get(key);
    if (!y) continue;
    pairs.push({
      key,
      difficulty: x.difficulty,
      solvedA: isSolved(x.successes, x.episodes),
      solvedB: isSolved(y.successes, y.episodes),
      meanReturnA: x.returns / x.episodes,
      meanReturnB: y.returns / y.episodes,
      seedsA: [...x.seeds].sort((p, q) => p - q),
      seedsB: [...y.seeds].sort((p, q) => p - q),
    });
  }
  pairs.sort((p, q) => (p.key < q.key ? -1 : p.key > q.key ? 1 : 0));
  return { pairs, onlyInA: sideA.size - pairs.length, onlyInB: sideB.size - pairs.length };
}

export function pairedStats(pairs: readonly PairedQuestion[], rng: Rng, resamples = 2000): PairedStats {
  const onlyA = pairs.filter((p) => p.solvedA && !p.solvedB).length;
  const onlyB = pairs.filter((p) => p.solvedB && !p.solvedA).length;
  const differences = pairs.map((p) => p.meanReturnB - p.meanReturnA);
  const meanReturnDiff = differences.length === 0 ? 0 : differences.reduce((s, d) => s + d, 0) / differences.length;
  return { questions: pairs.length, onlyA, onlyB, p: mcnemarExactP(onlyA, onlyB), meanReturnDiff, interval: pairedBootstrapInterval(differences, rng, resamples) };
}

export interface RunForStats {
  records: readonly EpisodeRecord[];
  envVersion?: number;
}

/** Overall and per-difficulty figures for B against A, with warnings; `seed` seeds the bootstrap. */
export function compareWithStats(a: RunForStats, b: RunForStats, options: { seed?: number; resamples?: number } = {}): PairedComparison {
  const seed = options.seed ?? 0;
  const resamples = options.resamples ?? 2000;
  const rng = createRng(seed);
  const { pairs, onlyInA, onlyInB } = pairQuestions(a.records, b.records);
  const byDifficulty: Partial<Record<Difficulty, PairedStats>> = {};
  const overall = pairedStats(pairs, rng, resamples);
  for (const d of DIFFICULTIES) {
    const group = pairs.filter((p) => p.difficulty === d);
    if (group.length > 0) byDifficulty[d] = pairedStats(group, rng, resamples);
  }
  const warnings: string[] = [];
  if (onlyInA > 0 || onlyInB > 0)
    warnings.push(`The runs are not over the same questions: ${pairs.length} are compared; ${onlyInA} only A played and ${onlyInB} only B played are left out.`);
  const reseeded = pairs.filter((p) => p.seedsA.length !== p.seedsB.length || p.seedsA.some((s, i) => s !== p.seedsB[i])).length;
  if (reseeded > 0) warnings.push(`The runs played ${reseeded} of the ${pairs.length} questions with different seeds or episode counts: part of a difference may be sampling noise.`);
  if (a.envVersion !== undefined && b.envVersion !== undefined && a.envVersion !== b.envVersion)
    warnings.push(`Run A was played under environment v${a.envVersion} and run B under v${b.envVersion}: rewards and dynamics differ between versions, so a difference may come from the environment, not the policy.`);
  return { overall, byDifficulty, warnings, seed, resamples };
}

/** A p-value as people read it: `p = 0.03`, `p = 0.004`, `p < 0.001`, `p = 1`. */
export function formatP(p: number): string {
  if (p < 0.001) return 'p < 0.001';
  if (p >= 0.995) return 'p = 1';
  return `p = ${p < 0.01 ? p.toFixed(3) : p.toFixed(2)}`;
}

function signed(x: number, digits: number): string {
  const text = x.toFixed(digits);
  return x > 0 && Number(text) !== 0 ? `+${text}` : Number(text) === 0 ? (0).toFixed(digits) : text;
}

/** `+6 of 34, p = 0.03`: questions B solved that A did not, minus the reverse, of the questions compared. */
export function successWords(s: PairedStats): string {
  const diff = s.onlyB - s.onlyA;
  return `${diff > 0 ? '+' : ''}${diff} of ${s.questions}, ${formatP(s.p)}`;
}

/** `+0.21 (95% interval +0.05 to +0.38)`: B's mean return minus A's, per question. */
export function returnWords(s: PairedStats): string {
  return `${signed(s.meanReturnDiff, 2)} (95% interval ${signed(s.interval.low, 2)} to ${signed(s.interval.high, 2)})`;
}

/** The whole comparison in one sentence, B against A. */
export function summaryWords(s: PairedStats): string {
  const verdict = s.p < 0.05 ? 'more than chance' : 'within what chance gives';
  return `B vs A: success ${successWords(s)} (McNemar exact; ${s.onlyB} only B solved, ${s.onlyA} only A; ${verdict}); mean return ${returnWords(s)}.`;
}
