/**
 * The "reads" toy task: the toy task's schema (singer, concert), but every database's contents are drawn from its
 * content seed — how many singers and concerts, which names and titles, who is oldest, which concert is latest — so a
 * question's answer changes from database to database and a policy that does not read what the environment shows is
 * right only by chance. The best such policy (one fixed answer per question) is computed exactly by `fixedAnswerCeiling`,
 * which enumerates every outcome of the content generator with its probability.
 *
 * Questions (`READS_TEMPLATES`), each asked on every database:
 * - counts ("How many singers / concerts are there?"): the DESCRIBE that the Oracle makes first already shows the
 *   count ("Table singer (4 rows)"), and a QUERY shows it again;
 * - names and titles (oldest, youngest singer; latest concert): only the QUERY (or a SAMPLE read with care) shows them.
 *
 * Tokenizer (`createReadsTokenizer`, a phrase tokenizer of toy-task.ts): every value an answer can need (counts, names,
 * titles) is one token wherever it appears, in observations and in answers alike, so the model can copy it; every
 * DESCRIBE, SAMPLE and gold QUERY call is one token, so a tiny random model produces valid actions by chance; an
 * ANSWER is three tokens (the call's opening up to the value, the value, its closing), with separate openings for
 * numbers (`{"value": 4}`) and text (`{"value": "Ana"}`) as Qwen's template writes them. "Steps left: k" and "(1 row)"
 * are tokens of their own so the digits in them are not read as values.
 */
import type { SqlJsStatic } from 'sql.js';
import { computeGoldResult } from '../data/gold.ts';
import { createRng, type Rng } from '../data/rng.ts';
import type { Dataset, Question, Split } from '../data/types.ts';
import type { Tokenizer } from '../model/tokenizer.ts';
import { LocalSqlExecutor } from '../sql/executor.ts';
import { hasOrderBy } from '../sql/order-by.ts';
import { createPhraseTokenizer, pyJson } from './toy-task.ts';

/** Source of the generator's discrete choices: an index in [0, n), each equally likely. */
export type Chooser = (n: number) => number;

export const READS_NAMES = ['Ana', 'Bruno', 'Chen', 'Dua', 'Emeka', 'Farah'] as const;
export const READS_TITLES = ['Spring', 'Summer', 'Autumn', 'Winter', 'Gala'] as const;
/** Row counts of either table: 2..5, equally likely. */
export const READS_MIN_ROWS = 2;
export const READS_MAX_ROWS = 5;
/** Countries follow the names (no randomness of their own: no question asks for them). */
const COUNTRY_OF: Readonly<Record<string, string>> = { Ana: 'France', Bruno: 'Brazil', Chen: 'China', Dua: 'Kosovo', Emeka: 'Nigeria', Farah: 'Egypt' };

export interface Singer {
  name: string;
  country: string;
  age: number;
}
export interface Concert {
  title: string;
  year: number;
}

/** `count` distinct items of `pool` in a random order (each ordered draw equally likely). */
function drawDistinct<T>(choose: Chooser, pool: readonly T[], count: number): T[] {
  const left = [...pool];
  return Array.from({ length: count }, () => left.splice(choose(left.length), 1)[0]);
}

function drawCount(choose: Chooser): number {
  return READS_MIN_ROWS + choose(READS_MAX_ROWS - READS_MIN_ROWS + 1);
}

/** The singer table: 2..5 distinct names, ages all different (a random ranking), countries by name. */
export function drawSingers(choose: Chooser): Singer[] {
  const names = drawDistinct(choose, READS_NAMES, drawCount(choose));
  const ranks = drawDistinct(choose, names.map((_, i) => i), names.length);
  return names.map((name, i) => ({ name, country: COUNTRY_OF[name], age: 21 + 8 * ranks[i] }));
}

/** The concert table: 2..5 distinct titles, years all different (a random ranking). */
export function drawConcerts(choose: Chooser): Concert[] {
  const titles = drawDistinct(choose, READS_TITLES, drawCount(choose));
  const ranks = drawDistinct(choose, titles.map((_, i) => i), titles.length);
  return titles.map((title, i) => ({ title, year: 2011 + 3 * ranks[i] }));
}

export interface ReadsContent {
  singers: Singer[];
  concerts: Concert[];
}

/** One database's contents, drawn from its content seed. */
export function drawContent(seed: number): ReadsContent {
  const rng: Rng = createRng(seed);
  const choose: Chooser = (n) => Math.floor(rng.next() * n);
  return { singers: drawSingers(choose), concerts: drawConcerts(choose) };
}

export interface ReadsTemplate {
  id: string;
  question: string;
  gold: string;
  /** The table whose contents decide the answer (the ceiling enumerates that table's generator). */
  table: 'singer' | 'concert';
  /** The answer from the contents (checked against the gold SQL on real databases by the tests). */
  answer(content: ReadsContent): string | number;
}

const byAge = (c: ReadsContent, sign: 1 | -1): string => [...c.singers].sort((a, b) => sign * (b.age - a.age))[0].name;

export const READS_TEMPLATES: readonly ReadsTemplate[] = [
  { id: 'singers', question: 'How many singers are there?', gold: 'SELECT count(*) FROM singer', table: 'singer', answer: (c) => c.singers.length },
  { id: 'concerts', question: 'How many concerts are there?', gold: 'SELECT count(*) FROM concert', table: 'concert', answer: (c) => c.concerts.length },
  { id: 'oldest', question: 'Who is the oldest singer?', gold: 'SELECT name FROM singer ORDER BY age DESC LIMIT 1', table: 'singer', answer: (c) => byAge(c, 1) },
  { id: 'youngest', question: 'Who is the youngest singer?', gold: 'SELECT name FROM singer ORDER BY age ASC LIMIT 1', table: 'singer', answer: (c) => byAge(c, -1) },
  {
    id: 'latest',
    question: 'Which concert was the latest?',
    gold: 'SELECT title FROM concert ORDER BY year DESC LIMIT 1',
    table: 'concert',
    answer: (c) => [...c.concerts].sort((a, b) => b.year - a.year)[0].title,
  },
];

/**
 * Every outcome of a generator with its probability: replays `generate` once per path through its choices (an
 * odometer over the choice indices, the last choice turning fastest), so the probabilities are exact products of 1/n.
 */
export function enumerateOutcomes<T>(generate: (choose: Chooser) => T): Array<{ value: T; p: number }> {
  const out: Array<{ value: T; p: number }> = [];
  let path: number[] = [];
  for (;;) {
    const sizes: number[] = [];
    let p = 1;
    const value = generate((n) => {
      const i = sizes.length;
      sizes.push(n);
      p /= n;
      return path[i] ?? 0;
    });
    out.push({ value, p });
    // Advance the odometer: bump the last choice that has room, drop the ones after it.
    const next = sizes.map((_, i) => path[i] ?? 0);
    let k = next.length - 1;
    while (k >= 0 && next[k] + 1 >= sizes[k]) k--;
    if (k < 0) return out;
    next[k]++;
    path = next.slice(0, k + 1);
  }
}

export interface CeilingRow {
  template: string;
  /** The most likely answer and its probability: the best fixed answer's success rate on this question. */
  answer: string | number;
  p: number;
  outcomes: number;
}

/**
 * The best fixed-answer policy's success rate, exactly: per question, the probability of its most likely answer
 * under the content distribution (every outcome of the table's generator enumerated); overall, their mean (each
 * question is asked once per database). No policy that ignores observations does better: its answer is independent
 * of the contents, so it is right with probability Σ_v P(policy says v)·P(answer = v) ≤ max_v P(answer = v).
 */
export function fixedAnswerCeiling(): Readonly<{ rate: number; rows: readonly CeilingRow[] }> {
  // The enumeration takes seconds and its answer never changes: the Train view's form and every run's end ask again.
  ceiling ??= Object.freeze(computeCeiling());
  return ceiling;
}
let ceiling: Readonly<{ rate: number; rows: readonly CeilingRow[] }> | undefined;

function computeCeiling(): { rate: number; rows: CeilingRow[] } {
  const outcomes = { singer: enumerateOutcomes(drawSingers), concert: enumerateOutcomes(drawConcerts) };
  const rows = READS_TEMPLATES.map((t): CeilingRow => {
    const mass = new Map<string | number, number>();
    const list = outcomes[t.table];
    for (const { value, p } of list) {
      const content: ReadsContent = t.table === 'singer' ? { singers: value as Singer[], concerts: [] } : { singers: [], concerts: value as Concert[] };
      const a = t.answer(content);
      mass.set(a, (mass.get(a) ?? 0) + p);
    }
    const [answer, p] = [...mass].reduce((best, x) => (x[1] > best[1] ? x : best));
    return { template: t.id, answer, p, outcomes: list.length };
  });
  return { rate: rows.reduce((s, r) => s + r.p, 0) / rows.length, rows };
}

const sqlText = (s: string): string => `'${s.replace(/'/g, "''")}'`;

/** The database of `content` (the toy schema). */
export function readsSchemaSql(content: ReadsContent): string {
  const singers = content.singers.map((s, i) => `(${i + 1},${sqlText(s.name)},${sqlText(s.country)},${s.age})`).join(',');
  const concerts = content.concerts.map((c, i) => `(${i + 1},${sqlText(c.title)},${c.year})`).join(',');
  return `
CREATE TABLE singer (singer_id INTEGER PRIMARY KEY, name TEXT NOT NULL, country TEXT, age INTEGER);
CREATE TABLE concert (concert_id INTEGER PRIMARY KEY, title TEXT, year INTEGER);
INSERT INTO singer VALUES ${singers};
INSERT INTO concert VALUES ${concerts};
`;
}

/** The database of a content seed; its digits are written as letters (0 → a … 9 → j) so no value token appears in it. */
export const readsDbId = (seed: number): string => `reads_${[...String(seed)].map((d) => String.fromCharCode(97 + Number(d))).join('')}`;
const VALUE_SLOT = 'VALUE_SLOT';
const READS_TABLES = ['singer', 'concert'] as const;
/** The step budgets the observations can show ("Steps left: k" is one token for k ≤ this). */
const MAX_BUDGET_SHOWN = 10;

const call = (name: string, args: Record<string, unknown>): string => `<tool_call>\n{"name": ${JSON.stringify(name)}, "arguments": ${pyJson(args)}}\n</tool_call>`;

/** The reads tokenizer (see the header). */
export function createReadsTokenizer(): Tokenizer {
  const [textOpen, textClose] = call('answer', { value: VALUE_SLOT }).split(VALUE_SLOT);
  const answerNumber = call('answer', { value: 0 });
  const cut = answerNumber.indexOf(': 0}') + 2;
  const values = [...Array.from({ length: READS_MAX_ROWS - READS_MIN_ROWS + 1 }, (_, i) => String(READS_MIN_ROWS + i)), ...READS_NAMES, ...READS_TITLES];
  return createPhraseTokenizer([
    'system\n',
    'user\n',
    'assistant\n',
    '<tool_response>\n',
    '\n</tool_response>',
    ...READS_TEMPLATES.map((t) => t.question),
    ...READS_TABLES.flatMap((table) => [call('describe', { table }), call('sample', { table })]),
    ...READS_TEMPLATES.map((t) => call('query', { sql: t.gold })),
    textOpen,
    textClose,
    answerNumber.slice(0, cut),
    answerNumber.slice(cut + 1),
    ...values,
    ...Array.from({ length: MAX_BUDGET_SHOWN + 1 }, (_, k) => `Steps left: ${k}`),
    '(1 row)',
    'hmm',
  ]);
}

/** One database per content seed with every template asked on it; `split` of each seed's questions. */
export async function buildReadsDataset(sql: SqlJsStatic, seeds: ReadonlyArray<{ seed: number; split: Split }>, name = 'toy-reads'): Promise<Dataset> {
  const bytes = new Map<string, Uint8Array>();
  const executor = new LocalSqlExecutor(sql);
  const questions: Question[] = [];
  try {
    for (const { seed, split } of seeds) {
      const dbId = readsDbId(seed);
      if (bytes.has(dbId)) throw new RangeError(`toy-reads: content seed ${seed} listed twice`);
      const db = new sql.Database();
      db.run(readsSchemaSql(drawContent(seed)));
      bytes.set(dbId, db.export());
      db.close();
      await executor.load(dbId, bytes.get(dbId)!);
      for (const t of READS_TEMPLATES) {
        const gold = await computeGoldResult(executor, dbId, t.gold);
        if (!gold.ok) throw new Error(`toy-reads gold SQL failed on ${dbId}: ${gold.reason}`);
        questions.push({ id: `${dbId}-${t.id}`, dbId, question: t.question, gold: t.gold, goldResult: gold.result, orderMatters: hasOrderBy(t.gold), difficulty: 'easy', split });
      }
    }
  } finally {
    await executor.close();
  }
  return {
    name,
    description: 'Toy singer/concert databases whose contents are drawn per database, for learning tests that need reading.',
    license: 'CC0',
    databases: [...bytes.keys()].map((id) => ({ id, file: `db/${id}.sqlite`, tables: [...READS_TABLES] })),
    questions,
    loadDatabase: async (dbId) => {
      const b = bytes.get(dbId);
      if (!b) throw new RangeError(`toy-reads: no database '${dbId}'`);
      return b;
    },
  };
}
