/**
 * The reward audit: an adversarial search for trajectories that game the environment's reward. RL finds every way a
 * reward pays, so this plays the part of the policy: for each question it builds a vocabulary of hacks — constant
 * queries, literal guesses of gold values (alone and dressed up as a query on a table), repeats with other case and
 * spacing, DESCRIBE/SAMPLE of every table, the gold SQL as a QUERY without answering, invalid actions, and answers
 * right, with an extra row, with a row missing or plain wrong — and plays
 *   - random trajectories of hacks, ending in one of the answers or in the step budget, and
 *   - greedy insertion: from the shortest correct episode, insert each hack at the front and just before the answer,
 *     keep the insertion that pays the most, and go on until the budget is full,
 * checking on every trajectory the reward properties 1–4 of rewards.ts:
 *   1. correct dominates: every correct episode returns more than every episode without a correct answer;
 *   2. no pay for padding: an insertion into a correct episode never raises its return, and content-free steps
 *      (constant, literal, repeat, invalid) earn ≤ 0 and no progress;
 *   3. earlier is better: of two correct episodes of one question, the shorter never returns less;
 *   4. progress only from the database: constant and literal queries earn no progress and no information bonus.
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

/** What a hack is, for the properties: content-free kinds must never earn. */
export type HackKind =
  | 'constant'
  | 'literal-guess'
  | 'literal-on-table'
  | 'repeat'
  | 'invalid'
  | 'look'
  | 'gold-query'
  | 'answer-right'
  | 'answer-extra-row'
  | 'answer-missing-row'
  | 'answer-wrong';

export const CONTENT_FREE_KINDS: ReadonlySet<HackKind> = new Set(['constant', 'literal-guess', 'literal-on-table', 'repeat', 'invalid']);

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
  property: 1 | 2 | 3 | 4;
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

/** The hacks for one question: every action an attacker might pad with or end on. */
export function hackVocabulary(question: Question, tables: readonly string[]): Hack[] {
  const gold = question.goldResult;
  const hacks: Hack[] = [
    { kind: 'constant', text: 'QUERY SELECT 1' },
    { kind: 'constant', text: "QUERY SELECT 'x', 2" },
    { kind: 'constant', text: 'QUERY SELECT count(*) FROM sqlite_master' },
    { kind: 'invalid', text: 'LOOK around' },
    { kind: 'invalid', text: 'DESCRIBE no_such_table_here' },
    { kind: 'invalid', text: 'QUERY SELEC 1' },
    { kind: 'gold-query', text: `QUERY ${question.gold}` },
  ];
  for (const t of tables) hacks.push({ kind: 'look', text: `DESCRIBE ${quoteIdentifier(t)}` }, { kind: 'look', text: `SAMPLE ${quoteIdentifier(t)}` });
  const firstRow = gold.rows[0]?.map(sqlLiteral) ?? [];
  if (firstRow.length > 0 && firstRow.every((l) => l !== null)) {
    hacks.push({ kind: 'literal-guess', text: `QUERY SELECT ${firstRow.join(', ')}` });
    const values = gold.rows.map((r) => `(${r.map(sqlLiteral).join(', ')})`);
    if (values.every((v) => !v.includes('null)') && !v.includes('(null'))) hacks.push({ kind: 'literal-guess', text: `QUERY SELECT * FROM (VALUES ${values.join(', ')})` });
    for (const t of tables.slice(0, 3)) hacks.push({ kind: 'literal-on-table', text: `QUERY SELECT ${firstRow.join(', ')} FROM ${quoteIdentifier(t)} LIMIT 1` });
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

/** Property 2 (content-free steps) and 4 on one trajectory. */
function stepViolations(t: PlayedTrajectory): Violation[] {
  const out: Violation[] = [];
  const texts = t.steps.map((s) => s.hack.text);
  for (const s of t.steps) {
    if (!CONTENT_FREE_KINDS.has(s.hack.kind) || s.components.correctness === 1) continue;
    if (s.reward > EPS || s.components.progress > EPS || s.components.operational > EPS) {
      const property = s.hack.kind === 'constant' || s.hack.kind.startsWith('literal') ? 4 : 2;
      out.push({ property, questionId: t.questionId, message: `${s.hack.kind} step '${s.hack.text}' earned ${s.reward.toFixed(4)} (progress ${s.components.progress.toFixed(4)})`, trajectory: texts });
    }
  }
  return out;
}

/** Runs the search over `questions` (each with its database's tables) and checks properties 1–4. */
export async function auditRewards(env: SqlEnv, questions: readonly Question[], tablesOf: (q: Question) => readonly string[], options: AuditOptions): Promise<AuditReport> {
  const rng = createRng(options.seed);
  const budget = env.config.budget;
  const tried = Object.fromEntries(
    ['constant', 'literal-guess', 'literal-on-table', 'repeat', 'invalid', 'look', 'gold-query', 'answer-right', 'answer-extra-row', 'answer-missing-row', 'answer-wrong'].map((k) => [k, 0]),
  ) as Record<HackKind, number>;
  const report: AuditReport = { questions: questions.length, trajectories: 0, steps: 0, correctTrajectories: 0, tried, minCorrectReturn: Infinity, maxFailedReturn: -Infinity, violations: [] };
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
            report.violations.push({ property: 2, questionId: question.id, message: `inserting '${hack.text}' raised a correct episode's return from ${baseTrajectory.episodeReturn.toFixed(4)} to ${t.episodeReturn.toFixed(4)}`, trajectory: hacks.map((h) => h.text) });
          }
          if (t.correct && (!best || t.episodeReturn > best.t.episodeReturn)) best = { hacks, t };
        }
      }
      if (!best) break;
      base = best.hacks;
      baseTrajectory = best.t;
    }

    // Property 3: a shorter correct episode never returns less.
    const lengths = [...correctByLength.keys()].sort((a, b) => a - b);
    for (let i = 0; i + 1 < lengths.length; i++) {
      const shorterMin = Math.min(...(correctByLength.get(lengths[i]) ?? []));
      const longerMax = Math.max(...lengths.slice(i + 1).flatMap((l) => correctByLength.get(l) ?? []));
      if (shorterMin < longerMax - EPS) {
        report.violations.push({ property: 3, questionId: question.id, message: `a correct episode of ${lengths[i]} steps returned ${shorterMin.toFixed(4)}, less than a longer one (${longerMax.toFixed(4)})`, trajectory: [] });
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
    `  hacks played: ${kinds}`,
    `  worst correct return ${r.minCorrectReturn.toFixed(4)}, best failed return ${r.maxFailedReturn.toFixed(4)}`,
    `  violations: ${r.violations.length}`,
  ];
  for (const v of r.violations.slice(0, 10)) lines.push(`  property ${v.property} on ${v.questionId}: ${v.message}${v.trajectory.length > 0 ? ` — ${v.trajectory.join(' | ')}` : ''}`);
  return lines.join('\n');
}
