import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DatasetError, toManifest } from '../../src/data/bundle.ts';
import { readBundleFolder, writeBundleFolder } from '../../src/data/bundle-node.ts';
import { buildTinyDataset } from '../fixtures/tiny-dataset.ts';

describe('bundles', () => {
  it('index the bundles written beside each other', async () => {
    const root = mkdtempSync(join(tmpdir(), 'sqlenv-index-'));
    const tiny = await buildTinyDataset();
    await writeBundleFolder(join(root, 'b'), tiny);
    await writeBundleFolder(join(root, 'a'), tiny);
    expect(JSON.parse(readFileSync(join(root, 'index.json'), 'utf8'))).toEqual({ bundles: ['a', 'b'] });
  });

  it('round-trip questions, gold results (BLOBs included) and database bytes', async () => {
    const root = mkdtempSync(join(tmpdir(), 'sqlenv-bundle-'));
    const tiny = await buildTinyDataset();
    tiny.questions[0].goldResult = { columns: ['b'], rows: [[new Uint8Array([0, 255, 7])]] };
    await writeBundleFolder(join(root, 'tiny'), tiny);
    const back = await readBundleFolder(join(root, 'tiny'));
    expect(back.questions).toEqual(tiny.questions);
    expect(await back.loadDatabase('concerts')).toEqual(await tiny.loadDatabase('concerts'));
  });

  it('refuse a manifest of another format or shape with a message that names the fix', async () => {
    const root = mkdtempSync(join(tmpdir(), 'sqlenv-bad-'));
    writeFileSync(join(root, 'manifest.json'), JSON.stringify({ format: 99, questions: [], databases: [] }));
    await expect(readBundleFolder(root)).rejects.toThrow(/format 99.*import it again/);
    writeFileSync(join(root, 'manifest.json'), JSON.stringify({ format: 1 }));
    await expect(readBundleFolder(root)).rejects.toThrow(DatasetError);
    writeFileSync(join(root, 'manifest.json'), '{ not json');
    await expect(readBundleFolder(root)).rejects.toThrow(/npm run data:demo/);
  });

  it.each([['../../outside.sqlite'], ['db/../../x.sqlite'], ['/etc/x.sqlite'], ['db/a\\..\\..\\x.sqlite'], ['db/x.sqlite\u0000.png'], ['other/x.sqlite']])(
    'refuse a manifest whose database file %j lies outside the bundle, and never write one',
    async (file) => {
      const root = mkdtempSync(join(tmpdir(), 'sqlenv-escape-'));
      const tiny = await buildTinyDataset();
      writeFileSync(join(root, 'manifest.json'), JSON.stringify({ ...toManifest(tiny), databases: [{ ...tiny.databases[0], file }] }));
      await expect(readBundleFolder(root)).rejects.toThrow(/has a file outside the bundle/);
      const hostile = { ...tiny, databases: [{ ...tiny.databases[0], file }] };
      writeFileSync(join(root, 'keep.txt'), 'still here');
      await expect(writeBundleFolder(root, hostile)).rejects.toThrow(DatasetError);
      // Refused before anything was removed or written.
      expect(readFileSync(join(root, 'keep.txt'), 'utf8')).toBe('still here');
    },
  );
});
