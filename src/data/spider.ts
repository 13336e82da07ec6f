/**
 * The Spider importer. Takes anything in Spider's official layout — `database/<db>/<db>.sqlite`, `dev.json`, and
 * when present `train_spider.json` and `train_others.json` — read through a `SpiderSource` (spider-source.ts: a
 * folder on disk in Node, dropped files or a zip in the page), runs every gold query once through the given
 * executor, and returns a `Dataset` of the questions worth playing plus a report of what was kept and why the rest
 * was skipped. A string is a folder path (Node only).
 *
 * - Ids come from the position in each file: `dev-0042`, `train-00042`, `others-0042`, so they are stable.
 * - A question is skipped (and counted by reason) when its db_id is not a plain name (dbIdProblem: no path, no '..',
 *   so nothing outside the Spider folder is read), its database file is missing or unreadable, or its gold SQL
 *   fails, returns no rows, or returns more than MAX_GOLD_ROWS rows; when its gold SQL runs past the per-query time
 *   limit or crashes the SQL engine (a WASM trap: the database is opened again on a fresh engine and the import goes
 *   on); or when the import's overall time budget is spent (spider-budget.ts).
 * - Difficulty is Spider's hardness of the parsed `sql` field, or of the SQL text when that field is absent.
 * - Split: `sqlenvSplits` over all kept questions at once (curated databases → train/eval by groups of equal
 *   normalised gold SQL, equal answers or paraphrased texts: split.ts; the rest → heldout); the report counts what
 *   moved from the SQL-only rule.
 * Databases are run one at a time under one executor key, so memory stays at one database even for full Spider.
 * This module imports nothing from Node, so the page's environment worker runs the same importer.
 */
import type { SqlExecutor } from '../sql/executor.ts';
import { hasOrderBy } from '../sql/order-by.ts';
import { DatasetError } from './bundle.ts';
import { computeGoldResult } from './gold.ts';
import { hardnessFromSpiderSql, hardnessFromSqlText } from './hardness.ts';
import { printable } from './printable.ts';
import { DEFAULT_IMPORT_BUDGET, goldExecutor, type ImportBudget } from './spider-budget.ts';
import { emptyReport, type ImportReport, type SkipReason } from './spider-report.ts';
import { checkSpiderSource, dbIdProblem, spiderDatabaseFile, type SpiderSource } from './spider-source.ts';
import { folderSpiderSource } from './spider-source-node.ts';

// The report's types and formatter, so callers of the importer need one module.
export { formatImportReport, type ImportReport, type SkipReason } from './spider-report.ts';
import type { SpiderSql } from './spider-sql.ts';
import { CURATED_DATABASES, splitMoves, sqlenvSplits } from './split.ts';
import type { DatabaseEntry, Dataset, Difficulty, Question } from './types.ts';

/** The question files of Spider's layout, in import order, with the id prefix and zero padding of each. */
export const SPIDER_FILES = [
  { file: 'dev.json', prefix: 'dev', digits: 4, required: true },
  { file: 'train_spider.json', prefix: 'train', digits: 5, required: false },
  { file: 'train_others.json', prefix: 'others', digits: 4, required: false },
] as const;

export const SPIDER_LICENSE =
  'Spider 1.0 — Tao Yu, Rui Zhang, Kai Yang, et al., "Spider: A Large-Scale Human-Labeled Dataset for Complex and ' +
  'Cross-Domain Semantic Parsing and Text-to-SQL Task", EMNLP 2018 (https://yale-lily.github.io/spider). ' +
  'Questions, SQL and databases are licensed CC BY-SA 4.0 (https://creativecommons.org/licenses/by-sa/4.0/).';

/** One entry of dev.json / train_spider.json, as far as the importer reads it. */
export interface SpiderExample {
  db_id: string;
  question: string;
  query: string;
  sql?: SpiderSql;
}

export interface ImportOptions {
  /** Databases that form train/eval; default CURATED_DATABASES. */
  curated?: readonly string[];
  /** Called after each question with the number done and the total over all files. */
  onProgress?: (done: number, total: number) => void;
  /** Stops the import between two questions (it then rejects with the signal's reason). */
  signal?: AbortSignal;
  /** Time limits, each defaulting to DEFAULT_IMPORT_BUDGET's. */
  budget?: Partial<ImportBudget>;
  /** The clock (ms) the overall budget is measured on; tests pass a fake one. Default `Date.now`. */
  now?: () => number;
}

interface PendingQuestion {
  id: string;
  order: number;
  example: SpiderExample;
}

/** The executor key every Spider database is loaded under in turn (each load replaces the previous one). */
const IMPORT_KEY = 'spider-import';

function sourceOf(source: SpiderSource | string): SpiderSource {
  return typeof source === 'string' ? folderSpiderSource(source) : source;
}

function parseExamples(text: string, file: string): SpiderExample[] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new DatasetError(`${file} is not valid JSON: ${(e as Error).message}`);
  }
  if (!Array.isArray(data)) throw new DatasetError(`${file} should hold a JSON array of questions.`);
  return data.map((entry: unknown, index) => {
    const e = entry as Partial<Record<keyof SpiderExample, unknown>> | null;
    if (e === null || typeof e !== 'object' || typeof e.db_id !== 'string' || typeof e.question !== 'string' || typeof e.query !== 'string') {
      throw new DatasetError(`${file}, entry ${index}: expected an object with string fields db_id, question and query.`);
    }
    const sql = e.sql !== null && typeof e.sql === 'object' && !Array.isArray(e.sql) ? (e.sql as SpiderSql) : undefined;
    return { db_id: e.db_id, question: e.question, query: e.query, sql };
  });
}

function difficultyOf(example: SpiderExample): Difficulty {
  if (example.sql) {
    try {
      return hardnessFromSpiderSql(example.sql);
    } catch {
      // A malformed `sql` field: fall back to the text, which always gives a level.
    }
  }
  return hardnessFromSqlText(example.query);
}

type Opened = { ok: true; tables: string[] } | { ok: false; reason: SkipReason; detail: string };

/** Loads database `dbId` from `source` under IMPORT_KEY and lists its tables; says why not when it cannot. */
async function openDatabase(source: SpiderSource, executor: SqlExecutor, dbId: string): Promise<Opened> {
  const path = spiderDatabaseFile(dbId);
  if ((await source.kind(path)) !== 'file') return { ok: false, reason: 'missing-database', detail: `no file ${printable(path)}` };
  try {
    await executor.load(IMPORT_KEY, await source.readBytes(path));
    // Listed now, before any gold query runs, so a query that breaks the engine cannot take the listing with it.
    return { ok: true, tables: await executor.tables(IMPORT_KEY) };
  } catch (e) {
    return { ok: false, reason: 'unreadable-database', detail: (e as Error).message };
  }
}

export async function importSpider(from: SpiderSource | string, executor: SqlExecutor, options: ImportOptions = {}): Promise<{ dataset: Dataset; report: ImportReport }> {
  const curated = options.curated ?? CURATED_DATABASES;
  const budget: ImportBudget = { ...DEFAULT_IMPORT_BUDGET, ...options.budget };
  const now = options.now ?? Date.now;
  const deadline = now() + budget.totalMs;
  const gold = goldExecutor(executor, budget.queryMs);
  const source = sourceOf(from);
  await checkSpiderSource(source);

  // Read every question file present, in SPIDER_FILES order.
  const pending: PendingQuestion[] = [];
  const report = emptyReport(budget);
  for (const file of SPIDER_FILES) {
    if (!file.required && (await source.kind(file.file)) !== 'file') continue;
    const examples = parseExamples(await source.readText(file.file), file.file);
    report.sources.push({ file: file.file, questions: examples.length });
    examples.forEach((example, index) => {
      pending.push({ id: `${file.prefix}-${String(index).padStart(file.digits, '0')}`, order: pending.length, example });
    });
  }
  report.questions = pending.length;

  const kept: Array<{ order: number; question: Omit<Question, 'split'> }> = [];
  const databases: DatabaseEntry[] = [];
  let done = 0;
  const skip = (p: PendingQuestion, reason: SkipReason, detail: string): void => {
    report.skipped[reason]++;
    report.skippedQuestions.push({ id: p.id, dbId: p.example.db_id, reason, detail });
  };

  // Group by database so each is loaded once; databases in a fixed (code-unit) order. A db_id that is not a plain
  // name never becomes a path: its questions are skipped here.
  const byDb = new Map<string, PendingQuestion[]>();
  for (const p of pending) {
    const problem = dbIdProblem(p.example.db_id);
    if (problem) {
      skip(p, 'bad-db-id', `db_id '${printable(p.example.db_id)}' is not a plain database name: ${problem}`);
      options.onProgress?.(++done, pending.length);
      continue;
    }
    const list = byDb.get(p.example.db_id);
    if (list) list.push(p);
    else byDb.set(p.example.db_id, [p]);
  }
  const dbIds = [...byDb.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

  const overBudget: Opened = { ok: false, reason: 'over-budget', detail: `the import's time budget of ${budget.totalMs / 1000} s ran out before this question ran` };
  for (const dbId of dbIds) {
    const questions = byDb.get(dbId) ?? [];
    let opened = now() > deadline ? overBudget : await openDatabase(source, gold.executor, dbId);
    const tables = opened.ok ? opened.tables : [];
    let keptHere = 0;
    for (const p of questions) {
      options.signal?.throwIfAborted();
      if (opened.ok && now() > deadline) opened = overBudget;
      if (!opened.ok) skip(p, opened.reason, opened.detail);
      else {
        gold.takeFailure();
        const outcome = await computeGoldResult(gold.executor, IMPORT_KEY, p.example.query);
        const failure = gold.takeFailure();
        if (failure === 'crashed') {
          // The engine that ran it may be broken (a later query of computeGoldResult's may have crashed it too):
          // open the database again (a worker executor has already replaced its worker); if even that fails, the
          // database's other questions are skipped as unreadable.
          const reopened = await openDatabase(source, gold.executor, dbId);
          opened = reopened.ok ? opened : reopened;
        }
        if (!outcome.ok && failure === 'timeout') skip(p, 'timeout', `the gold SQL ran past the ${budget.queryMs / 1000} s limit per query`);
        else if (!outcome.ok && failure === 'crashed') skip(p, 'engine-crash', outcome.reason);
        else if (!outcome.ok) skip(p, outcome.tooLarge ? 'too-large' : 'sql-error', outcome.reason);
        else if (outcome.result.rows.length === 0) skip(p, 'empty-result', 'the gold SQL returns no rows');
        else {
          keptHere++;
          kept.push({
            order: p.order,
            question: {
              id: p.id,
              dbId,
              question: p.example.question,
              gold: p.example.query,
              goldResult: outcome.result,
              ...(outcome.ties ? { goldTies: outcome.ties } : {}),
              orderMatters: hasOrderBy(p.example.query),
              difficulty: difficultyOf(p.example),
            },
          });
        }
      }
      options.onProgress?.(++done, pending.length);
    }
    if (keptHere > 0) databases.push({ id: dbId, file: `db/${dbId}.sqlite`, tables });
  }

  // The split needs every kept question at once: a group may join questions from several files.
  const unsplit = kept.sort((a, b) => a.order - b.order).map((k) => k.question);
  const inputs = unsplit.map((q) => ({ dbId: q.dbId, question: q.question, gold: q.gold, goldRows: q.goldResult.rows, ...(q.goldTies && { goldTies: q.goldTies }) }));
  const splits = sqlenvSplits(inputs, curated);
  const questions: Question[] = unsplit.map((q, i) => ({ ...q, split: splits[i] }));
  report.splitMoves = splitMoves(inputs, splits, curated);
  const orderOf = new Map(pending.map((p) => [p.id, p.order]));
  report.skippedQuestions.sort((a, b) => (orderOf.get(a.id) ?? 0) - (orderOf.get(b.id) ?? 0));
  for (const q of questions) {
    report.kept++;
    report.bySplit[q.split][q.difficulty]++;
    const row = (report.byDatabase[q.dbId] ??= { train: 0, eval: 0, heldout: 0 });
    row[q.split]++;
  }
  report.missingCurated = curated.filter((db) => !databases.some((d) => d.id === db));

  const known = new Set(databases.map((d) => d.id));
  const dataset: Dataset = {
    name: 'spider',
    description: `Spider 1.0 (${report.sources.map((s) => s.file).join(', ')}): ${questions.length} questions whose gold SQL runs and returns rows, on ${databases.length} SQLite databases. Train/eval: ${curated.length} curated databases; every other database is held out.`,
    license: SPIDER_LICENSE,
    databases,
    questions,
    loadDatabase: async (dbId) => {
      if (!known.has(dbId)) throw new DatasetError(`Dataset 'spider' has no database '${printable(dbId)}'.`);
      return source.readBytes(spiderDatabaseFile(dbId));
    },
  };
  return { dataset, report };
}
