/**
 * The SQLEnv split (src/data/split.ts): questions that share a normalised gold SQL, answers the lenient ANSWER
 * verifier equates, or paraphrased texts never straddle train and eval — on a synthetic case, on the demo dataset
 * and on the Spider dev data when it is there (tests/fixtures/spider-dir.ts). The straddle check is written apart
 * from the implementation: every cross-split pair is put to the strict verifier and to the lenient verifier
 * (src/env/answer.ts) itself, so a wrong key cannot vouch for itself; each Spider check also runs on the previous
 * rule's split and must find what the issue reported there (dev 776/777, the four eval questions answered by `'9'`).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import initSqlJs from 'sql.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDemoDataset, DEMO_CURATED, demoSplitMoves } from '../../src/data/demo/build.ts';
import { createRng, shuffled } from '../../src/data/rng.ts';
import { importSpider } from '../../src/data/spider.ts';
import { questionWords } from '../../src/data/paraphrase.ts';
import {
  cellKey,
  CURATED_DATABASES,
  goldResultKey,
  normalizeGoldSql,
  PREVIOUS_SPLIT_RULE,
  SPLIT_RULE,
  splitGroups,
  splitMoves,
  sqlenvSplits,
  sqlOnlySplit,
  type SplitInput,
} from '../../src/data/split.ts';
import type { Dataset, Question, Split } from '../../src/data/types.ts';
import { answerMatches } from '../../src/env/answer.ts';
import { executionMatch, valueKey } from '../../src/env/verifier.ts';
import type { SqlValue } from '../../src/sql/types.ts';
import { createNodeSqlExecutor } from '../../src/sql/node-worker.ts';
import type { WorkerSqlExecutor } from '../../src/sql/worker-executor.ts';
import { spiderDir } from '../fixtures/spider-dir.ts';

/** A question as the checks below read it. */
interface Item extends SplitInput {
  id: string;
  split: Split;
}

function items(questions: readonly Question[]): Item[] {
  return questions.map((q) => ({ id: q.id, dbId: q.dbId, question: q.question, gold: q.gold, goldRows: q.goldResult.rows, ...(q.goldTies && { goldTies: q.goldTies }), split: q.split }));
}

/**
 * The lenient verifier's relation on two gold results: one, written as JSON rows (or, for one row or one column, as
 * a flat JSON list), is accepted as an ANSWER for the other, either way round. Row order is ignored (the looser
 * reading, so more pairs count).
 */
function sameAnswer(a: ReadonlyArray<readonly SqlValue[]>, b: ReadonlyArray<readonly SqlValue[]>): boolean {
  const texts = (rows: ReadonlyArray<readonly SqlValue[]>): string[] => [
    JSON.stringify(rows),
    ...(rows.length === 1 || rows[0].length === 1 ? [JSON.stringify(rows.flat())] : []),
  ];
  const accepts = (x: typeof a, y: typeof b): boolean =>
    texts(x).some((t) => answerMatches(t, { columns: [], rows: y.map((r) => [...r]) }, false).match);
  return accepts(a, b) || accepts(b, a);
}

/**
 * Every pair of one database in train and eval whose answers the lenient verifier equates: `id/id`. A JSON answer
 * is read cell for cell, so only pairs with as many cells are put to the verifier (this only saves time).
 */
function answerStraddles(all: readonly Item[]): string[] {
  const out: string[] = [];
  const cells = (x: Item): number => x.goldRows.length * (x.goldRows[0]?.length ?? 0);
  for (const a of all) {
    if (a.split !== 'train') continue;
    for (const b of all) {
      if (b.split !== 'eval' || a.dbId !== b.dbId || cells(a) !== cells(b)) continue;
      if (sameAnswer(a.goldRows, b.goldRows)) out.push(`${a.id}/${b.id}`);
    }
  }
  return out;
}

/**
 * Every pair of one database in train and eval where one question's gold, written as JSON rows, is accepted for the
 * other only thanks to the other's ties (a legal result of its gold SQL): `id/id`, put to the verifier itself.
 */
function tieStraddles(all: readonly Item[]): string[] {
  const out: string[] = [];
  for (const b of all) {
    if (!b.goldTies || b.split === 'heldout') continue;
    const gold = { columns: [], rows: b.goldRows.map((r) => [...r]) };
    for (const a of all) {
      if (a.dbId !== b.dbId || a.split === 'heldout' || a.split === b.split) continue;
      if (answerMatches(JSON.stringify(a.goldRows), gold, false, b.goldTies).match) out.push(`${a.id}/${b.id}`);
    }
  }
  return out;
}

/** The result as a bag of rows, each row a bag of `valueKey`s: the test's own key, independent of split.ts. */
function verifierBagKey(rows: ReadonlyArray<readonly SqlValue[]>): string {
  return JSON.stringify(rows.map((r) => JSON.stringify(r.map(valueKey).sort())).sort());
}

/**
 * Every pair of one database in train and eval that shares a normalised SQL, a row-bag key, or that the strict
 * verifier matches either way round (ignoring row order): each as `id/id: reason`. Empty means sound.
 */
function straddles(all: readonly Item[]): string[] {
  const out: string[] = [];
  const train = all.filter((q) => q.split === 'train');
  const evals = all.filter((q) => q.split === 'eval');
  for (const a of train) {
    for (const b of evals) {
      if (a.dbId !== b.dbId) continue;
      const gold = { columns: [], rows: a.goldRows.map((r) => [...r]) };
      const pred = { columns: [], rows: b.goldRows.map((r) => [...r]) };
      if (normalizeGoldSql(a.gold) === normalizeGoldSql(b.gold)) out.push(`${a.id}/${b.id}: same SQL`);
      else if (verifierBagKey(a.goldRows) === verifierBagKey(b.goldRows)) out.push(`${a.id}/${b.id}: same result bag`);
      else if (executionMatch(gold, pred, false)) out.push(`${a.id}/${b.id}: verifier match`);
    }
  }
  return out;
}

/** Same questions, shuffled by `seed`, split again: the split each id gets. */
function splitsShuffled(all: readonly Item[], curated: readonly string[], seed: number): Map<string, Split> {
  const order = shuffled(createRng(seed), all);
  const splits = sqlenvSplits(order, curated);
  return new Map(order.map((q, i) => [q.id, splits[i]]));
}

describe('cellKey and goldResultKey', () => {
  const values: SqlValue[] = [null, 0, -0, 1, 1.0, 0.1 + 0.2, 0.3, '1', '', 'a', 'A', 'null', 'n:1', new Uint8Array([0, 255]), new Uint8Array([])];

  it('keys every cell as the strict verifier does', () => {
    for (const v of values) expect(cellKey(v), String(v)).toBe(valueKey(v));
  });

  it.each([
    ['columns reordered', [[1, 'a'], [2, 'b']], [['a', 1], ['b', 2]], true],
    ['rows reordered', [[1], [2], [3]], [[3], [1], [2]], true],
    ['1 and 1.0', [[1]], [[1.0]], true],
    ['number against text', [[1]], [['1']], false],
    ['case of text', [['a']], [['A']], false],
    ['NULL against the text null', [[null]], [['null']], false],
    ['row multiplicity', [[1], [1], [2]], [[1], [2], [2]], false],
    ['row count', [[1]], [[1], [1]], false],
    ['one wide row against two narrow ones', [['a', 'b']], [['a'], ['b']], false],
    ['a separator inside text', [['a","b']], [['a', 'b']], false],
    ['BLOB against its hex as text', [[new Uint8Array([171])]], [['b:ab']], false],
  ] as Array<[string, SqlValue[][], SqlValue[][], boolean]>)('%s', (_name, a, b, same) => {
    expect(goldResultKey(a) === goldResultKey(b)).toBe(same);
  });
});

describe('sqlenvSplits on a synthetic dataset', () => {
  const curated = ['zoo', 'shop'];
  const namesAges: SqlValue[][] = [['Rex', 3], ['Tom', 5]];
  const agesNames: SqlValue[][] = [[5, 'Tom'], [3, 'Rex']];
  const q = (id: string, dbId: string, gold: string, goldRows: SqlValue[][]): Item => ({ id, dbId, question: `Question ${id}?`, gold, goldRows, split: 'heldout' });
  const synthetic: Item[] = [
    // A paraphrase with its columns reordered: other SQL, same answer. The SQL-only rule put these apart.
    q('zoo-1', 'zoo', 'SELECT name, age FROM pets', namesAges),
    q('zoo-2', 'zoo', 'SELECT age, name FROM pets', agesNames),
    q('zoo-3', 'zoo', 'select  name , age from pets;', namesAges),
    // A chain: 4~5 by SQL (inconsistent rows, as a caller might pass), 5~6 by result, so 4, 5, 6 are one group.
    q('zoo-4', 'zoo', 'SELECT count(*) FROM owners', [[2]]),
    q('zoo-5', 'zoo', 'SELECT COUNT(*) FROM owners', [[7]]),
    q('zoo-6', 'zoo', 'SELECT max(age) FROM pets', [[7]]),
    q('zoo-7', 'zoo', 'SELECT name FROM pets WHERE age < 10', [['Rex'], ['Tom']]),
    // The same answer in another database is another answer.
    q('shop-1', 'shop', 'SELECT name, age FROM pets', namesAges),
    q('shop-2', 'shop', 'SELECT p.age, p.name FROM pets AS p', agesNames),
    // Not curated: heldout, whatever it shares.
    q('farm-1', 'farm', 'SELECT age, name FROM pets', agesNames),
  ];
  const splits = sqlenvSplits(synthetic, curated);
  const splitOf = new Map(synthetic.map((x, i) => [x.id, splits[i]]));
  const labelled = synthetic.map((x, i) => ({ ...x, split: splits[i] }));

  it('is a case the SQL-only rule gets wrong', () => {
    expect(sqlOnlySplit('zoo', 'SELECT name, age FROM pets', curated)).toBe('eval');
    expect(sqlOnlySplit('zoo', 'SELECT age, name FROM pets', curated)).toBe('train');
    const old = synthetic.map((x) => ({ ...x, split: sqlOnlySplit(x.dbId, x.gold, curated) }));
    expect(straddles(old)).not.toEqual([]);
  });

  it('puts a group on one side and no equal SQL or equal result across train and eval', () => {
    expect(straddles(labelled)).toEqual([]);
    expect(answerStraddles(labelled)).toEqual([]);
    expect(splitOf.get('zoo-2')).toBe(splitOf.get('zoo-1'));
    expect(splitOf.get('zoo-3')).toBe(splitOf.get('zoo-1'));
    expect(splitOf.get('zoo-5')).toBe(splitOf.get('zoo-4'));
    expect(splitOf.get('zoo-6')).toBe(splitOf.get('zoo-4'));
    expect(splitOf.get('farm-1')).toBe('heldout');
    expect(splits.filter((s) => s === 'heldout')).toHaveLength(1);
  });

  it('groups within one database only, closed under both links', () => {
    const groups = splitGroups(synthetic, curated).map((g) => g.map((i) => synthetic[i].id));
    expect(groups).toEqual([['zoo-1', 'zoo-2', 'zoo-3'], ['zoo-4', 'zoo-5', 'zoo-6'], ['zoo-7'], ['shop-1', 'shop-2']]);
  });

  it("decides a group by its smallest normalised SQL, so a lone question keeps the SQL-only rule's split", () => {
    expect(splitOf.get('zoo-1')).toBe(sqlOnlySplit('zoo', 'select age, name from pets', curated));
    expect(splitOf.get('zoo-4')).toBe(sqlOnlySplit('zoo', 'select count(*) from owners', curated));
    expect(splitOf.get('zoo-7')).toBe(sqlOnlySplit('zoo', 'SELECT name FROM pets WHERE age < 10', curated));
    // shop's group is decided by shop's SQL: 'select name, age …' < 'select p.age …'.
    expect(splitOf.get('shop-2')).toBe(sqlOnlySplit('shop', 'SELECT name, age FROM pets', curated));
    // zoo-1 and zoo-3 follow zoo-2 (eval → train); zoo-6 follows zoo-4 (train → eval); shop's two were both eval.
    expect(splits.slice(0, 9)).toEqual(['train', 'train', 'train', 'eval', 'eval', 'eval', 'train', 'eval', 'eval']);
    expect(splitMoves(synthetic, splits, curated)).toEqual({ trainToEval: 1, evalToTrain: 2 });
  });

  it('gives the same split whatever the order of the questions', () => {
    for (const seed of [1, 2, 3, 4, 5]) expect(splitsShuffled(synthetic, curated, seed)).toEqual(splitOf);
  });

  it('sends about TRAIN_PERCENT of lone questions to train', () => {
    const lone = Array.from({ length: 2000 }, (_, i) => q(`x-${i}`, 'zoo', `SELECT ${i}`, [[i]]));
    const train = sqlenvSplits(lone, curated).filter((s) => s === 'train').length;
    expect(train / lone.length).toBeGreaterThan(0.66);
    expect(train / lone.length).toBeLessThan(0.74);
  });
});

describe('sqlenvSplits joins lenient answers and paraphrases (synthetic)', () => {
  const curated = ['zoo'];
  /** Two gold SQLs whose SQL-only splits differ, so only a link can put their questions on one side. */
  function apartSqls(tag: string): [string, string] {
    const sqls = Array.from({ length: 40 }, (_, k) => `SELECT ${tag} FROM t${k}`);
    const train = sqls.find((x) => sqlOnlySplit('zoo', x, curated) === 'train');
    const evalSql = sqls.find((x) => sqlOnlySplit('zoo', x, curated) === 'eval');
    if (!train || !evalSql) throw new Error(`no SQL pair for ${tag}`);
    return [train, evalSql];
  }
  const pair = (tag: string, a: SqlValue[][], b: SqlValue[][], texts: [string, string] = [`What is ${tag} one?`, `What is ${tag} two?`]): Item[] => {
    const [sqlA, sqlB] = apartSqls(tag);
    return [
      { id: `${tag}-a`, dbId: 'zoo', question: texts[0], gold: sqlA, goldRows: a, split: 'heldout' },
      { id: `${tag}-b`, dbId: 'zoo', question: texts[1], gold: sqlB, goldRows: b, split: 'heldout' },
    ];
  };

  it.each([
    ['a count and its text', pair('nine', [[9]], [['9']])],
    ['text case and spacing', pair('city', [['New York']], [[' new  york']])],
    ['an average and its rounding', pair('avg', [[3.3333333333333335]], [[3.33]])],
    ['one row and one column with the same cells', pair('names', [['a', 'b']], [['b'], ['a']])],
    ['NULL and the text None', pair('none', [[null]], [['None']])],
    [
      'paraphrased questions with other golds (Spider dev 776/777)',
      pair('asia', [['China']], [['China'], ['Japan']], [
        'Which Asian countries have a population that is larger than any country in Africa?',
        'What are the Asian countries which have a population larger than that of any country in Africa?',
      ]),
    ],
  ])('%s: one side, where the previous rule split them', (_name, items) => {
    const before = sqlenvSplits(items, curated, PREVIOUS_SPLIT_RULE);
    expect(new Set(before).size).toBe(2);
    const after = sqlenvSplits(items, curated);
    expect(after[0]).toBe(after[1]);
    expect(answerStraddles(items.map((x, i) => ({ ...x, split: after[i] })))).toEqual([]);
  });

  it.each([
    ['other counts', pair('ten', [[9]], [[10]])],
    ['other texts', pair('town', [['York']], [['New York']])],
    ['averages 0.06 apart', pair('mean', [[3.33]], [[3.39]])],
    ['a negated question with another answer', pair('speak', [['France']], [['Peru']], ['Which countries speak English?', 'Which countries do not speak English?'])],
  ])('%s: left to their own sides', (_name, items) => {
    expect(sqlenvSplits(items, curated)).toEqual(sqlenvSplits(items, curated, PREVIOUS_SPLIT_RULE));
    expect(splitGroups(items, curated)).toHaveLength(2);
  });
});

describe('sqlenvSplits on the demo dataset', () => {
  let dataset: Dataset;
  let demo: Item[];
  beforeAll(async () => {
    dataset = await buildDemoDataset({ sqlJs: await initSqlJs() });
    demo = items(dataset.questions);
  });

  it('has no equal SQL or equal result across train and eval, and the build uses sqlenvSplits', () => {
    expect(straddles(demo)).toEqual([]);
    expect(demo.map((x) => x.split)).toEqual(sqlenvSplits(demo, DEMO_CURATED));
    expect(demo.some((x) => x.split === 'heldout')).toBe(false);
  });

  it('is independent of question order', () => {
    const expected = new Map(demo.map((x) => [x.id, x.split]));
    for (const seed of [7, 8]) expect(splitsShuffled(demo, DEMO_CURATED, seed)).toEqual(expected);
  });

  it('moves no demo question: its gold results are pairwise different (README table: 53 train, 34 eval)', () => {
    expect(splitGroups(demo, DEMO_CURATED)).toHaveLength(demo.length);
    expect(demoSplitMoves(dataset)).toEqual({ trainToEval: 0, evalToTrain: 0 });
    expect(demo.filter((x) => x.split === 'train')).toHaveLength(53);
    expect(demo.filter((x) => x.split === 'eval')).toHaveLength(34);
  });
});

const SPIDER = spiderDir();

describe.skipIf(!existsSync(join(SPIDER, 'dev.json')))('sqlenvSplits on the Spider dev data', () => {
  let executor: WorkerSqlExecutor;
  let spider: Item[];
  beforeAll(async () => {
    executor = createNodeSqlExecutor({ limits: { timeoutMs: 20_000 } });
    spider = items((await importSpider(SPIDER, executor)).dataset.questions);
  });
  afterAll(async () => {
    await executor.close();
  });

  it('has no equal SQL or equal result across train and eval (the SQL-only rule had some)', () => {
    expect(straddles(spider)).toEqual([]);
    const old = spider.map((x) => ({ ...x, split: sqlOnlySplit(x.dbId, x.gold) }));
    expect(straddles(old).length).toBeGreaterThan(0);
  });

  it('has no two questions of one database in train and eval whose answers the lenient verifier equates', () => {
    expect(answerStraddles(spider)).toEqual([]);
    // The previous rule (strict result keys) left the pairs: two train questions answered '9' (text, from
    // max(age)) against four eval counts of 9.
    const previous = sqlenvSplits(spider, CURATED_DATABASES, PREVIOUS_SPLIT_RULE);
    const old = spider.map((x, i) => ({ ...x, split: previous[i] }));
    const expected = ['dev-0988', 'dev-0989'].flatMap((t) => ['dev-0966', 'dev-0967', 'dev-0974', 'dev-0975'].map((e) => `${t}/${e}`));
    expect(answerStraddles(old).sort()).toEqual(expected);
  });

  it('has no answer accepted across train and eval through ties (a legal result of a gold SQL); without tie links there are some', () => {
    expect(spider.filter((x) => x.goldTies).length).toBeGreaterThan(0);
    expect(tieStraddles(spider)).toEqual([]);
    const withoutTies = sqlenvSplits(spider, CURATED_DATABASES, { ...SPLIT_RULE, ties: false });
    const old = spider.map((x, i) => ({ ...x, split: withoutTies[i] }));
    const found = tieStraddles(old);
    console.log(`tie straddles without tie links: ${found.length} (${found.slice(0, 6).join(', ')})`);
    expect(found.length).toBeGreaterThan(0);
  });

  it("puts the four eval questions answered by a train question's '9' on one side with it", () => {
    const ids = ['dev-0966', 'dev-0967', 'dev-0974', 'dev-0975', 'dev-0988', 'dev-0989'];
    const sides = ids.map((id) => spider.find((x) => x.id === id)?.split);
    expect(new Set(sides).size).toBe(1);
    expect(sides[0]).not.toBe('heldout');
  });

  it('puts dev 776 and 777 (one question, two disagreeing golds) on one side; the previous rule split them', () => {
    const [a, b] = ['dev-0776', 'dev-0777'].map((id) => spider.findIndex((x) => x.id === id));
    expect(spider[a].split).toBe(spider[b].split);
    const previous = sqlenvSplits(spider, CURATED_DATABASES, PREVIOUS_SPLIT_RULE);
    expect(previous[a]).not.toBe(previous[b]);
  });

  it('joins by text alone only pairs read by hand as paraphrases (dev 16/17, 774/775, 776/777)', () => {
    // Pairs of one curated database with the same content words whose SQL differs and whose answers the verifier
    // does not equate: what the text link adds. Each was read: the same question asked twice.
    const joined: string[] = [];
    for (const a of spider) {
      for (const b of spider) {
        if (a.id >= b.id || a.dbId !== b.dbId || a.split === 'heldout' || questionWords(a.question) !== questionWords(b.question)) continue;
        if (normalizeGoldSql(a.gold) !== normalizeGoldSql(b.gold) && !sameAnswer(a.goldRows, b.goldRows)) joined.push(`${a.id}/${b.id}`);
      }
    }
    expect(joined).toEqual(['dev-0016/dev-0017', 'dev-0774/dev-0775', 'dev-0776/dev-0777']);
    for (const pair of joined) {
      const [a, b] = pair.split('/').map((id) => spider.find((x) => x.id === id)?.split);
      expect(a, pair).toBe(b);
    }
  });

  it('puts dev questions 93, 94 and 110 (one answer, other SQL) on one side', () => {
    const side = ['dev-0093', 'dev-0094', 'dev-0110'].map((id) => spider.find((x) => x.id === id)?.split);
    expect(side).toEqual(['train', 'train', 'train']);
  });

  it('is independent of question order', () => {
    const expected = new Map(spider.map((x) => [x.id, x.split]));
    expect(splitsShuffled(spider, CURATED_DATABASES, 11)).toEqual(expected);
  });
});
