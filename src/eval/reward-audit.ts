/**
 * The reward audit: an adversarial search for trajectories that game the environment's reward. RL finds every way a
 * reward pays, so this plays the part of the policy: for each question it builds a vocabulary of hacks in families —
 * constant queries; connection-state functions (total_changes(), changes(), last_insert_rowid(), alone and added to a
 * guess); non-deterministic ones (random(), random()+k, randomblob); literal guesses of the gold result, plain and
 * dressed in other spellings (char(…), CAST, arithmetic, length('…'), hex, '' || …, 6.0); gated guesses (`… WHERE
 * EXISTS (SELECT 1 FROM t)`, `… FROM t LIMIT 1`); re-orderings of the gold SQL (`ORDER BY random()`, `ORDER BY 1`);
 * cosmetic variants of it (a wrapping SELECT, `AS` alias, `WHERE 1=1`, `LIMIT -1`, `main.`-qualified tables, `"…"`
 * quoting); a 10,001-row constant CTE; repeats with other case and spacing; invalid actions; DESCRIBE/SAMPLE of every
 * table; the gold SQL as a QUERY; and answers right, with an extra row, a row missing or plain wrong — and plays
 *   - random trajectories of hacks, ending in one of the answers or in the step budget,
 *   - greedy insertion: from the shortest correct episode, insert each hack at the front and just before the answer,
 *     keep the insertion that pays the most, and go on until the budget is full, and
 *   - stalling to the budget against answering (wrongly) at every step of the same trajectory,
 * checking on every trajectory the reward properties of rewards.ts:
 *   1. correct dominates: every correct episode returns more than every episode without a correct answer;
 *   2. progress only from the database's content: no hack of a content-free family earns progress, and a re-ordered
 *      or cosmetic variant of a query already run earns none either;
 *   3. no pay for activity: every step that is not a correct answer earns operational < 0, and an insertion into a
 *      correct episode never raises its return;
 *   4. answering never loses to stalling: answering wrongly at step k returns at least as much as going on to the
 *      budget with steps that gain no closeness;
 *   5. earlier is better: of two correct episodes of one question, the shorter never returns less.
 * Everything is seeded: the same seed and questions give the same search.
 */
import { createRng, pick, randomInt, type Rng } from '../data/rng.ts';
import type { Question } from '../data/types.ts';
import type { SqlEnv } from '../env/env.ts';
import type { RewardComponents } from '../env/rewards.ts';
import { answerText } from '../policies/oracle.ts';
import { quoteIdentifier } from '../sql/engine.ts';
import { significantTokens } from '../sql/tokenize.ts';
import type { SqlValue } from '../sql/types.ts';

/** What a hack is, for the properties: content-free kinds must never earn progress. */
export const HACK_KINDS = [
  'constant',
  'connection-state',
  'non-deterministic',
  'literal-guess',
  'dressed-literal',
  'gated-guess',
  'big-constant-cte',
  'reordering',
  'cosmetic-variant',
  'repeat',
  'invalid',
  'look',
  'gold-query',
  'answer-right',
  'answer-extra-row',
  'answer-missing-row',
  'answer-wrong',
] as const;
export type HackKind = (typeof HACK_KINDS)[number];

export const CONTENT_FREE_KINDS: ReadonlySet<HackKind> = new Set([
  'constant',
  'connection-state',
  'non-deterministic',
  'literal-guess',
  'dressed-literal',
  'gated-guess',
  'big-constant-cte',
  'repeat',
  'invalid',
]);

/** Variants of the gold SQL: they may earn closeness only when nothing equivalent ran before. */
const VARIANT_KINDS: ReadonlySet<HackKind> = new Set(['gold-query', 'reordering', 'cosmetic-variant']);

export interface Hack {
  kind: HackKind;
  text: string;
}

export interface PlayedStep {
  hack: Hack;
  reward: number;
  components: RewardComponents;
}

export interface PlayedTrajectory {
  questionId: string;
  steps: PlayedStep[];
  correct: boolean;
  episodeReturn: number;
}

export interface Violation {
  property: 1 | 2 | 3 | 4 | 5;
  questionId: string;
  message: string;
  trajectory: string[];
}

export interface AuditReport {
  questions: number;
  trajectories: number;
  steps: number;
  correctTrajectories: number;
  /** Hacks played, by kind. */
  tried: Record<HackKind, number>;
  /** Stalling trajectories compared with answering at each of their steps. */
  stallComparisons: number;
  minCorrectReturn: number;
  maxFailedReturn: number;
  violations: Violation[];
}

export interface AuditOptions {
  seed: number;
  /** Random trajectories per question. */
  randomTrajectories: number;
  /** Insertions the greedy search makes at most (capped by the budget). */
  greedyDepth: number;
}

const EPS = 1e-9;

/** A SQL literal for a gold value; BLOBs have none the hacks need. */
function sqlLiteral(v: SqlValue): string | null {
  if (v === null) return 'NULL';
  if (typeof v === 'number') return String(v);
  if (typeof v === 'string') return `'${v.replaceAll("'", "''")}'`;
  return null;
}

/** Other spellings of one gold value: the literal guess dressed so no literal of it appears in the SQL. */
export function dressedSpellings(v: SqlValue): string[] {
  if (typeof v === 'number') {
    const out = [`CAST('${v}' AS ${Number.isInteger(v) ? 'INTEGER' : 'REAL'})`, `(${v} - 1) + 1`, `${v}.0 * 1`, `abs(${-v})`];
    if (Number.isInteger(v) && v >= 0 && v <= 200) out.push(`length('${'a'.repeat(v)}')`, `0x${v.toString(16)}`, `${v} + total_changes()`);
    if (Number.isInteger(v) && v > 1 && v % 2 === 0) out.push(`2 * ${v / 2}`);
    return out;
  }
  if (typeof v === 'string' && v.length > 0 && v.length <= 200) {
    const codes = [...v].map((c) => c.codePointAt(0) ?? 0);
    const hex = [...new TextEncoder().encode(v)].map((b) => b.toString(16).padStart(2, '0')).join('');
    const lit = sqlLiteral(v) ?? "''";
    return [`char(${codes.join(', ')})`, `CAST(X'${hex}' AS TEXT)`, `'' || ${lit}`, `substr(${lit}, 1)`, `${lit} || substr(total_changes(), 1, 0)`];
  }
  return [];
}

/** The same action with its keywords re-cased and its spaces changed: a repeat a naive key would miss. */
export function recaseAndRespace(text: string, rng: Rng): string {
  const keyword = /^\s*(\w+)\s+([\s\S]*)$/.exec(text);
  if (!keyword) return text;
  const recase = (w: string): string => [...w].map((c) => (rng.next() < 0.5 ? c.toUpperCase() : c.toLowerCase())).join('');
  const [, verb, rest] = keyword;
  if (verb.toUpperCase() !== 'QUERY') return `${recase(verb)}  ${recase(rest)}`;
  const out = significantTokens(rest).map((t) => (t.kind === 'word' ? recase(t.text) : t.text));
  return `${recase(verb)}   ${out.join(rng.next() < 0.5 ? '  ' : ' \n ')} ;`;
}

/** Cosmetic variants of a SELECT: the same rows spelled another way. */
function cosmeticVariants(sql: string, tables: readonly string[]): string[] {
  const body = sql.trim().replace(/;\s*$/, '');
  const out = [`SELECT * FROM (${body}) AS renamed`, `SELECT * FROM (${body}) WHERE 1=1`, `SELECT * FROM (${body}) LIMIT -1`];
  const quoted = body.replace(/\b([A-Za-z_][A-Za-z0-9_]*)\b/g, (w) => (tables.some((t) => t.toLowerCase() === w.toLowerCase()) ? `"${w}"` : w));
  if (quoted !== body) out.push(quoted);
  const qualified = body.replace(/\b(FROM|JOIN)\s+([A-Za-z_][A-Za-z0-9_]*)/gi, (_m, kw: string, t: string) => (tables.some((x) => x.toLowerCase() === t.toLowerCase()) ? `${kw} main.${t}` : `${kw} ${t}`));
  if (qualified !== body) out.push(qualified);
  return out;
}

/** The hacks for one question: every action an attacker might pad with or end on. */
export function hackVocabulary(question: Question, tables: readonly string[]): Hack[] {
  const gold = question.goldResult;
  const hacks: Hack[] = [
    { kind: 'constant', text: 'QUERY SELECT 1' },
    { kind: 'constant', text: "QUERY SELECT 'x', 2" },
    { kind: 'constant', text: 'QUERY SELECT count(*) FROM sqlite_master' },
    { kind: 'connection-state', text: 'QUERY SELECT total_changes()' },
    { kind: 'connection-state', text: 'QUERY SELECT changes(), last_insert_rowid()' },
    { kind: 'non-deterministic', text: 'QUERY SELECT random()' },
    { kind: 'non-deterministic', text: 'QUERY SELECT random() + 7' },
    { kind: 'non-deterministic', text: 'QUERY SELECT abs(random()) % 10, hex(randomblob(2))' },
    { kind: 'big-constant-cte', text: 'QUERY WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 10001) SELECT x FROM c' },
    { kind: 'invalid', text: 'LOOK around' },
    { kind: 'invalid', text: 'DESCRIBE no_such_table_here' },
    { kind: 'invalid', text: 'QUERY SELEC 1' },
    { kind: 'gold-query', text: `QUERY ${question.gold}` },
    { kind: 'reordering', text: `QUERY SELECT * FROM (${question.gold.trim().replace(/;\s*$/, '')}) ORDER BY random()` },
    { kind: 'reordering', text: `QUERY SELECT * FROM (${question.gold.trim().replace(/;\s*$/, '')}) ORDER BY 1` },
  ];
  for (const sql of cosmeticVariants(question.gold, tables)) hacks.push({ kind: 'cosmetic-variant', text: `QUERY ${sql}` });
  for (const t of tables) hacks.push({ kind: 'look', text: `DESCRIBE ${quoteIdentifier(t)}` }, { kind: 'look', text: `SAMPLE ${quoteIdentifier(t)}` });
  const firstRow = gold.rows[0]?.map(sqlLiteral) ?? [];
  if (firstRow.length > 0 && firstRow.every((l) => l !== null)) {
    const row = firstRow.join(', ');
    hacks.push({ kind: 'literal-guess', text: `QUERY SELECT ${row}` });
    const values = gold.rows.slice(0, 200).map((r) => `(${r.map(sqlLiteral).join(', ')})`);
    if (values.every((v) => !v.includes('null)') && !v.includes('(null'))) hacks.push({ kind: 'literal-guess', text: `QUERY SELECT * FROM (VALUES ${values.join(', ')})` });
    hacks.push({ kind: 'connection-state', text: `QUERY SELECT ${gold.rows[0].map((v) => (typeof v === 'number' ? `${v} + total_changes()` : (sqlLiteral(v) ?? 'NULL'))).join(', ')}` });
    const dressed = gold.rows[0].map(dressedSpellings);
    const spellings = Math.max(0, ...dressed.map((d) => d.length));
    for (let k = 0; k < spellings; k++) {
      if (dressed.some((d) => d.length === 0 && gold.rows[0].some((v) => v !== null))) break;
      hacks.push({ kind: 'dressed-literal', text: `QUERY SELECT ${dressed.map((d, i) => d[k % Math.max(1, d.length)] ?? firstRow[i]).join(', ')}` });
    }
    for (const t of tables.slice(0, 3)) {
      hacks.push({ kind: 'gated-guess', text: `QUERY SELECT ${row} FROM ${quoteIdentifier(t)} LIMIT 1` });
      hacks.push({ kind: 'gated-guess', text: `QUERY SELECT ${row} WHERE EXISTS (SELECT 1 FROM ${quoteIdentifier(t)})` });
    }
  }
  const right = answerText(gold);
  hacks.push({ kind: 'answer-right', text: `ANSWER ${right}` });
  hacks.push({ kind: 'answer-right', text: `ANSWER ${JSON.stringify(gold.rows.map((r) => r.map((v) => (v instanceof Uint8Array ? null : v))))}` });
  if (gold.rows.length > 0) {
    const rows = gold.rows.map((r) => r.map((v) => (v instanceof Uint8Array ? null : v)));
    hacks.push({ kind: 'answer-extra-row', text: `ANSWER ${JSON.stringify([...rows, rows[0]])}` });
    if (rows.length >= 2) hacks.push({ kind: 'answer-missing-row', text: `ANSWER ${JSON.stringify(rows.slice(1))}` });
  }
  hacks.push({ kind: 'answer-wrong', text: 'ANSWER no idea, sorry' });
  return hacks;
}

const isAnswer = (h: Hack): boolean => h.kind.startsWith('answer');

/** Plays `hacks` as one episode of `question` (stopping when the episode ends). */
export async function playTrajectory(env: SqlEnv, question: Question, hacks: readonly Hack[]): Promise<PlayedTrajectory> {
  await env.reset({ questionId: question.id, seed: 0 });
  const steps: PlayedStep[] = [];
  let correct = false;
  for (const hack of hacks) {
    const r = await env.step(hack.text);
    steps.push({ hack, reward: r.reward, components: r.info.components });
    correct = r.info.correct === true;
    if (r.done) break;
  }
  return { questionId: question.id, steps, correct, episodeReturn: env.state().episodeReturn };
}

/** Properties 2 and 3 on the steps of one trajectory. */
function stepViolations(t: PlayedTrajectory): Violation[] {
  const out: Violation[] = [];
  const texts = t.steps.map((s) => s.hack.text);
  let variantBefore = false;
  for (const s of t.steps) {
    if (s.components.correctness === 1) continue;
    const where = `${s.hack.kind} step '${s.hack.text.slice(0, 200)}'`;
    if (CONTENT_FREE_KINDS.has(s.hack.kind) && s.components.progress > EPS) {
      out.push({ property: 2, questionId: t.questionId, message: `${where} earned progress ${s.components.progress.toFixed(4)}`, trajectory: texts });
    }
    if (variantBefore && VARIANT_KINDS.has(s.hack.kind) && s.components.progress > EPS) {
      out.push({ property: 2, questionId: t.questionId, message: `${where} re-ran an equivalent query and earned progress ${s.components.progress.toFixed(4)}`, trajectory: texts });
    }
    if (s.components.operational > -EPS) {
      out.push({ property: 3, questionId: t.questionId, message: `${where} earned operational ${s.components.operational.toFixed(4)} (every step must cost)`, trajectory: texts });
    }
    // After the gold SQL itself (Φ = 1) no variant may pay; a re-ordering before it may earn less than 1 (it lost the
    // order an ordered gold asks for), and the gold after it then rightly earns the rest.
    if (s.hack.kind === 'gold-query') variantBefore = true;
  }
  return out;
}

/** Runs the search over `questions` (each with its database's tables) and checks properties 1–4. */
export async function auditRewards(env: SqlEnv, questions: readonly Question[], tablesOf: (q: Question) => readonly string[], options: AuditOptions): Promise<AuditReport> {
  const rng = createRng(options.seed);
  const budget = env.config.budget;
  const tried = Object.fromEntries(HACK_KINDS.map((k) => [k, 0])) as Record<HackKind, number>;
  const report: AuditReport = { questions: questions.length, trajectories: 0, steps: 0, correctTrajectories: 0, tried, stallComparisons: 0, minCorrectReturn: Infinity, maxFailedReturn: -Infinity, violations: [] };
  const record = (t: PlayedTrajectory): void => {
    report.trajectories++;
    report.steps += t.steps.length;
    for (const s of t.steps) tried[s.hack.kind]++;
    if (t.correct) {
      report.correctTrajectories++;
      report.minCorrectReturn = Math.min(report.minCorrectReturn, t.episodeReturn);
    } else report.maxFailedReturn = Math.max(report.maxFailedReturn, t.episodeReturn);
    report.violations.push(...stepViolations(t));
  };

  for (const question of questions) {
    const vocab = hackVocabulary(question, tablesOf(question));
    const padding = vocab.filter((h) => !isAnswer(h));
    const answers = vocab.filter(isAnswer);
    const right = vocab.find((h) => h.kind === 'answer-right');
    if (!right) continue;
    const correctByLength = new Map<number, number[]>();
    const noteCorrect = (t: PlayedTrajectory): void => {
      if (!t.correct) return;
      const list = correctByLength.get(t.steps.length) ?? [];
      list.push(t.episodeReturn);
      correctByLength.set(t.steps.length, list);
    };
    /** A padding hack, or a re-cased repeat of an action already in `prefix`. */
    const drawPadding = (prefix: readonly Hack[]): Hack => {
      const earlier = prefix.filter((h) => !isAnswer(h));
      if (earlier.length > 0 && rng.next() < 0.25) return { kind: 'repeat', text: recaseAndRespace(pick(rng, earlier).text, rng) };
      return pick(rng, padding);
    };

    for (let i = 0; i < options.randomTrajectories; i++) {
      const length = randomInt(rng, budget + 1);
      const hacks: Hack[] = [];
      for (let k = 0; k < length; k++) hacks.push(drawPadding(hacks));
      if (rng.next() < 0.8) hacks.push(pick(rng, answers));
      const t = await playTrajectory(env, question, hacks);
      record(t);
      noteCorrect(t);
    }

    // Greedy insertion from the shortest correct episode: no insertion may raise the return (property 2).
    let base: Hack[] = [right];
    let baseTrajectory = await playTrajectory(env, question, base);
    record(baseTrajectory);
    noteCorrect(baseTrajectory);
    for (let depth = 0; depth < Math.min(options.greedyDepth, budget - 1); depth++) {
      let best: { hacks: Hack[]; t: PlayedTrajectory } | null = null;
      const candidates = [...padding, drawPadding(base)];
      for (const hack of candidates) {
        // A repeat must come after the action it repeats, which is somewhere before the answer.
        for (const at of new Set(hack.kind === 'repeat' ? [base.length - 1] : [0, base.length - 1])) {
          const hacks = [...base.slice(0, at), hack, ...base.slice(at)];
          const t = await playTrajectory(env, question, hacks);
          record(t);
          noteCorrect(t);
          if (t.correct && t.episodeReturn > baseTrajectory.episodeReturn + EPS) {
            report.violations.push({ property: 3, questionId: question.id, message: `inserting '${hack.text}' raised a correct episode's return from ${baseTrajectory.episodeReturn.toFixed(4)} to ${t.episodeReturn.toFixed(4)}`, trajectory: hacks.map((h) => h.text) });
          }
          if (t.correct && (!best || t.episodeReturn > best.t.episodeReturn)) best = { hacks, t };
        }
      }
      if (!best) break;
      base = best.hacks;
      baseTrajectory = best.t;
    }

    // Property 4: stalling to the budget with steps that gain no closeness never beats answering (wrongly) at any
    // step of the same trajectory.
    const stall: Hack[] = [];
    // Content-free steps and DESCRIBEs: nothing that can gain closeness (v2 paid DESCRIBEs of the gold's tables).
    const contentFree = padding.filter((h) => CONTENT_FREE_KINDS.has(h.kind) || (h.kind === 'look' && h.text.startsWith('DESCRIBE')));
    for (let k = 0; k < budget && contentFree.length > 0; k++) stall.push(pick(rng, contentFree));
    if (stall.length === budget) {
      const stalled = await playTrajectory(env, question, stall);
      record(stalled);
      const wrong: Hack = { kind: 'answer-wrong', text: 'ANSWER no idea, sorry' };
      for (let k = 0; k < budget; k++) {
        const answered = await playTrajectory(env, question, [...stall.slice(0, k), wrong]);
        record(answered);
        report.stallComparisons++;
        const gainedLater = stalled.steps.slice(k).some((s) => s.components.progress > EPS);
        if (!answered.correct && !gainedLater && answered.episodeReturn < stalled.episodeReturn - EPS) {
          report.violations.push({ property: 4, questionId: question.id, message: `answering wrongly after ${k} steps returned ${answered.episodeReturn.toFixed(4)}, less than stalling to the budget (${stalled.episodeReturn.toFixed(4)})`, trajectory: stall.map((h) => h.text) });
        }
      }
    }

    // Property 5: a shorter correct episode never returns less.
    const lengths = [...correctByLength.keys()].sort((a, b) => a - b);
    for (let i = 0; i + 1 < lengths.length; i++) {
      const shorterMin = Math.min(...(correctByLength.get(lengths[i]) ?? []));
      const longerMax = Math.max(...lengths.slice(i + 1).flatMap((l) => correctByLength.get(l) ?? []));
      if (shorterMin < longerMax - EPS) {
        report.violations.push({ property: 5, questionId: question.id, message: `a correct episode of ${lengths[i]} steps returned ${shorterMin.toFixed(4)}, less than a longer one (${longerMax.toFixed(4)})`, trajectory: [] });
      }
    }
  }
  // Property 1, over every question at once: the bounds are global.
  if (report.correctTrajectories > 0 && report.maxFailedReturn >= report.minCorrectReturn - EPS) {
    report.violations.push({ property: 1, questionId: '*', message: `a failed episode returned ${report.maxFailedReturn.toFixed(4)}, not less than the worst correct one (${report.minCorrectReturn.toFixed(4)})`, trajectory: [] });
  }
  return report;
}

/** A short text of what the search tried and found, for logs and the CLI. */
export function formatAuditReport(r: AuditReport): string {
  const kinds = Object.entries(r.tried).map(([k, n]) => `${k} ${n}`).join(', ');
  const lines = [
    `reward audit: ${r.questions} questions, ${r.trajectories} trajectories, ${r.steps} steps (${r.correctTrajectories} correct)`,
    `  hacks played by family: ${kinds}; stalling compared with answering at ${r.stallComparisons} steps`,
    `  worst correct return ${r.minCorrectReturn.toFixed(4)}, best failed return ${r.maxFailedReturn.toFixed(4)}`,
    `  violations: ${r.violations.length}`,
  ];
  for (const v of r.violations.slice(0, 10)) lines.push(`  property ${v.property} on ${v.questionId}: ${v.message}${v.trajectory.length > 0 ? ` — ${v.trajectory.join(' | ')}` : ''}`);
  return lines.join('\n');
}
