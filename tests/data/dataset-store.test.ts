/**
 * The dataset store's contract, on the in-memory store (IndexedDB's is the same contract, exercised by the e2e
 * reload test): save, list newest first, load with databases on demand, replace, remove; and dataset names.
 */
import { describe, expect, it } from 'vitest';
import { toManifest } from '../../src/data/bundle.ts';
import { datasetNameProblem, memoryDatasetStore, suggestDatasetName } from '../../src/data/dataset-store.ts';
import { buildTinyDataset, tinyDatabaseBytes } from '../fixtures/tiny-dataset.ts';

describe('memoryDatasetStore', () => {
  it('keeps datasets with their databases, newest first, until removed', async () => {
    const store = memoryDatasetStore();
    const tiny = await buildTinyDataset();
    const progress: Array<[number, number]> = [];
    const info = await store.save({ ...tiny, name: 'a' }, { kind: 'spider', source: 'a.zip', createdAt: 1 }, (d, t) => progress.push([d, t]));
    expect(info).toEqual({ name: 'a', kind: 'spider', source: 'a.zip', createdAt: 1, databases: 1, questions: 5, bytes: (await tinyDatabaseBytes()).length });
    expect(progress).toEqual([[1, 1]]);
    await store.save({ ...tiny, name: 'b' }, { kind: 'free-play', source: 'b.db', createdAt: 2 });
    expect((await store.list()).map((d) => d.name)).toEqual(['b', 'a']);

    const loaded = await store.load('a');
    expect(loaded && toManifest(loaded)).toEqual(toManifest({ ...tiny, name: 'a' }));
    expect(await loaded?.loadDatabase('concerts')).toEqual(await tiny.loadDatabase('concerts'));
    await expect(loaded?.loadDatabase('nope')).rejects.toThrow(/no database 'nope'/);
    expect(await store.load('missing')).toBeNull();

    await store.remove('a');
    expect((await store.list()).map((d) => d.name)).toEqual(['b']);
    expect(await store.load('a')).toBeNull();
  });
});

describe('dataset names', () => {
  const problems: Array<[string, string[], RegExp | null]> = [
    ['my-spider', [], null],
    ['spider_2', ['spider'], null],
    ['demo', [], /built with the app/],
    ['spider', [], null], // no Spider bundle was built: an import may take the name
    ['spider', ['spider'], /already exists/],
    ['taken', ['taken'], /already exists/],
    ['Upper', [], /lowercase/],
    ['', [], /1 to 40/],
    ['-dash', [], /starting with a letter or digit/],
    ['a'.repeat(41), [], /1 to 40/],
  ];
  it.each(problems)('%j with %j taken', (name, taken, problem) => {
    const found = datasetNameProblem(name, taken);
    if (problem) expect(found).toMatch(problem);
    else expect(found).toBeNull();
  });

  const suggestions: Array<[string, string[], string]> = [
    ['spider.zip', [], 'spider'],
    ['spider.zip', ['spider'], 'spider-2'],
    ['spider_data.zip', [], 'spider_data'],
    ['My Music.sqlite', [], 'my-music'],
    ['chinook.db', ['chinook', 'chinook-2'], 'chinook-3'],
    ['???', [], 'dataset'],
  ];
  it.each(suggestions)('suggests a free name for %j', (text, taken, name) => {
    expect(suggestDatasetName(text, taken)).toBe(name);
    expect(datasetNameProblem(name, taken)).toBeNull();
  });
});
