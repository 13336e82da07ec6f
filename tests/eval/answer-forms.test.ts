/**
 * The corpus of fair answer forms (src/eval/answer-forms.ts): hand-checked texts of each form, every form accepted
 * for its own gold on the demo data and on Spider dev (when present), and no text accepted for two different gold
 * results of one database (the hedge search), with a constructed hedge to show the search finds one.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDemoDataset } from '../../src/data/demo/build.ts';
import { importSpider } from '../../src/data/spider.ts';
import type { Question } from '../../src/data/types.ts';
import { ANSWER_FORMS, findHedges, formText, runAnswerForms } from '../../src/eval/answer-forms.ts';
import { createNodeSqlExecutor } from '../../src/sql/node-worker.ts';
import type { SqlValue } from '../../src/sql/types.ts';
import type { WorkerSqlExecutor } from '../../src/sql/worker-executor.ts';
import { spiderDir } from '../fixtures/spider-dir.ts';

function question(id: string, columns: string[], rows: SqlValue[][], dbId = 'db'): Question {
  return { id, dbId, question: '?', gold: 'SELECT 1', orderMatters: false, difficulty: 'easy', split: 'train', goldResult: { columns, rows } };
}

describe('formText', () => {
  const one = question('one', ['count(*)'], [[6]]);
  const table = question('table', ['name', 'note'], [['Smith, J', null], ['O\'Neil', 'say "hi"\nbye']]);
  it.each([
    [one, 'python-fetchall', '[(6,)]'],
    [one, 'python-tuple', '(6,)'],
    [one, 'csv-header', 'count(*)\n6'],
    [one, 'markdown', '| count(*) |\n| --- |\n| 6 |'],
    [one, 'markdown-no-rule', '| count(*) |\n| 6 |'],
    [one, 'name-value', 'count(*): 6'],
    [table, 'python-fetchall', `[('Smith, J', None), ("O'Neil", 'say "hi"\\nbye')]`],
    [table, 'csv', `"Smith, J",\nO'Neil,"say ""hi""\nbye"`],
    [table, 'tsv-header', `name\tnote\nSmith, J\t\nO'Neil\t"say ""hi""\nbye"`],
    [table, 'json-records', '[{"name":"Smith, J","note":null},{"name":"O\'Neil","note":"say \\"hi\\"\\nbye"}]'],
  ] as Array<[Question, (typeof ANSWER_FORMS)[number], string]>)('case %#', (q, form, expected) => {
    expect(formText(q, form), `${form} of ${q.id}`).toBe(expected);
  });

  it('leaves out forms that cannot express the gold', () => {
    const table = question('t', ['a', 'b'], [['x|y', 1], ['z', 2]]);
    expect(formText(table, 'markdown')).toBeUndefined(); // a | inside a cell
    expect(formText(table, 'python-list')).toBeUndefined(); // 2 × 2 is no list
    expect(formText(question('n', ['a:b'], [[1]]), 'name-value')).toBeUndefined();
  });
});

describe('the corpus on hand-made golds', () => {
  it('accepts every form of each gold, and the search finds a constructed hedge', () => {
    const golds = [question('a', ['name', 'n'], [['Smith', 1], ['Jones', 2]]), question('b', ['x'], [[null], [null]]), question('c', ['x'], [['a\nb'], ['c']])];
    expect(runAnswerForms(golds).refused).toEqual([]);
    expect(findHedges(golds).hedges).toEqual([]);
    // A gold whose first row repeats its column name: "name\nSmith" is that gold's two rows, and the other gold's
    // one row under its header. The search must report it.
    const hedge = findHedges([question('h1', ['name'], [['name'], ['Smith']]), question('h2', ['name'], [['Smith']])]);
    expect(hedge.hedges.map((h) => [h.from, h.to, h.text])).toContainEqual(['h1', 'h2', 'name\nSmith']);
  });
});

describe('the corpus on the demo data', () => {
  it('accepts every form of every gold and finds no hedge', async () => {
    const { questions } = await buildDemoDataset();
    const forms = runAnswerForms(questions);
    expect(forms.refused).toEqual([]);
    for (const t of forms.tallies) expect(t.accepted, t.form).toBe(t.expressible);
    expect(forms.tallies.find((t) => t.form === 'python-fetchall')!.expressible).toBe(questions.length);
    const hedges = findHedges(questions);
    expect(hedges.pairs).toBeGreaterThan(1000);
    expect(hedges.hedges).toEqual([]);
  }, 120_000);
});

const spider = spiderDir();
describe.runIf(existsSync(join(spider, 'dev.json')))('the corpus on Spider dev', () => {
  let questions: Question[];
  let executor: WorkerSqlExecutor;
  beforeAll(async () => {
    executor = createNodeSqlExecutor();
    questions = (await importSpider(spider, executor)).dataset.questions;
  }, 240_000);
  afterAll(() => executor?.close());

  it('accepts every form of every gold (issue 21: 0/923 for [(6,)] and for a header line before)', () => {
    const forms = runAnswerForms(questions);
    expect(forms.refused).toEqual([]);
    expect(forms.tallies.find((t) => t.form === 'python-fetchall')!.accepted).toBe(923);
    expect(forms.tallies.find((t) => t.form === 'csv-header')!.accepted).toBe(923);
  }, 120_000);

  it('finds no hedge on three databases (the whole search: npm run eval:answer-forms)', () => {
    const some = questions.filter((q) => ['concert_singer', 'pets_1', 'car_1'].includes(q.dbId));
    const hedges = findHedges(some);
    expect(hedges.databases).toBe(3);
    expect(hedges.hedges).toEqual([]);
  }, 120_000);
});
