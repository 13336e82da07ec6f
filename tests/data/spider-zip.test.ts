/**
 * The zip reader under expansion rules (spider-zip.ts), on zips made here: seeded random zips read back exactly as
 * fflate's own `unzipSync` reads them (another implementation, so no golden value comes from the code under test);
 * bombs refused from their directory before anything inflates; an entry that lies about its size stopped while it
 * inflates; too many entries, too much in all, damaged zips; and, through the page's zip source, duplicate entries
 * and '..' paths refused with a message naming the entry.
 */
import { unzipSync, Zip, ZipDeflate, ZipPassThrough, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { DatasetError } from '../../src/data/bundle.ts';
import { createRng, randomInt, type Rng } from '../../src/data/rng.ts';
import { spiderSourceFromFiles, zipSpiderSource } from '../../src/data/spider-source-memory.ts';
import { listZipEntries, readZipEntry, ZIP_LIMITS, ZipError, type ZipLimits } from '../../src/data/spider-zip.ts';

const MIB = 1024 * 1024;

/** A zip holding `entries` in this order, duplicates allowed (fflate's streaming writer does not check names). */
function zipOfEntries(entries: Array<[name: string, bytes: Uint8Array, deflate: boolean]>): Uint8Array {
  const parts: Uint8Array[] = [];
  const zip = new Zip((err, data) => {
    if (err) throw err;
    parts.push(data);
  });
  for (const [name, bytes, deflate] of entries) {
    const file = deflate ? new ZipDeflate(name, { level: 9 }) : new ZipPassThrough(name);
    zip.add(file);
    file.push(bytes, true);
  }
  zip.end();
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Rewrites the inflated size that the central directory declares for `name` (offset 24 of its header). */
function declareSize(zip: Uint8Array, name: string, size: number): Uint8Array {
  const out = zip.slice();
  const view = new DataView(out.buffer);
  const bytes = new TextEncoder().encode(name);
  let found = 0;
  for (let at = 0; at + 46 + bytes.length <= out.length; at++) {
    if (view.getUint32(at, true) !== 0x02014b50 || view.getUint16(at + 28, true) !== bytes.length) continue;
    if (!bytes.every((b, i) => out[at + 46 + i] === b)) continue;
    view.setUint32(at + 24, size, true);
    found++;
  }
  expect(found).toBe(1);
  return out;
}

/**
 * A ZIP64 zip of stored entries, written by hand from APPNOTE.TXT 4.3.14–4.5.3 (fflate writes ZIP64 only past 4 GiB):
 * every size, offset and count in the classic records is 0xFFFF(FFFF) and the real values sit in ZIP64 extra fields
 * and the ZIP64 end record.
 */
function zip64Of(entries: Array<[name: string, bytes: Uint8Array]>): Uint8Array {
  const out: number[] = [];
  /** Little-endian fields, each [width in bytes, value]. */
  const put = (...fields: Array<[2 | 4 | 8, number]>): void => {
    for (const [width, value] of fields) for (let i = 0; i < width; i++) out.push(Math.floor(value / 2 ** (8 * i)) & 0xff);
  };
  const FULL32 = 0xffffffff;
  const offsets: number[] = [];
  const names = entries.map(([name]) => new TextEncoder().encode(name));
  entries.forEach(([, bytes], i) => {
    offsets.push(out.length);
    put([4, 0x04034b50], [2, 45], [2, 0], [2, 0], [4, 0], [4, 0], [4, FULL32], [4, FULL32], [2, names[i].length], [2, 20]);
    out.push(...names[i]);
    put([2, 1], [2, 16], [8, bytes.length], [8, bytes.length]);
    out.push(...bytes);
  });
  const cdStart = out.length;
  entries.forEach(([, bytes], i) => {
    put([4, 0x02014b50], [2, 45], [2, 45], [2, 0], [2, 0], [4, 0], [4, 0], [4, FULL32], [4, FULL32]);
    put([2, names[i].length], [2, 28], [2, 0], [2, 0], [2, 0], [4, 0], [4, FULL32]);
    out.push(...names[i]);
    put([2, 1], [2, 24], [8, bytes.length], [8, bytes.length], [8, offsets[i]]);
  });
  const cdSize = out.length - cdStart;
  const zip64End = out.length;
  put([4, 0x06064b50], [8, 44], [2, 45], [2, 45], [4, 0], [4, 0], [8, entries.length], [8, entries.length], [8, cdSize], [8, cdStart]);
  put([4, 0x07064b50], [4, 0], [8, zip64End], [4, 1]);
  put([4, 0x06054b50], [2, 0], [2, 0], [2, 0xffff], [2, 0xffff], [4, FULL32], [4, FULL32], [2, 0]);
  return new Uint8Array(out);
}

function randomBytes(rng: Rng, n: number): Uint8Array {
  const out = new Uint8Array(n);
  // Half the entries are text-like (they deflate), half noise (they do not).
  const alphabet = rng.next() < 0.5 ? 256 : 4;
  for (let i = 0; i < n; i++) out[i] = randomInt(rng, alphabet) + (alphabet === 4 ? 97 : 0);
  return out;
}

const zeros = (n: number) => new Uint8Array(n);
const limits = (over: Partial<ZipLimits>): ZipLimits => ({ ...ZIP_LIMITS, ...over });

describe('reading zips', () => {
  it('reads seeded random zips exactly as fflate does (names, sizes, bytes; stored and deflated)', () => {
    const seed = Date.now() % 1_000_000;
    console.log(`spider-zip random zip seed: ${seed}`);
    const rng = createRng(seed);
    for (let round = 0; round < 10; round++) {
      const files: Record<string, [Uint8Array, { level: 0 | 6 | 9 }]> = {};
      const count = 1 + randomInt(rng, 12);
      for (let i = 0; i < count; i++) {
        const name = `top/${'abcdé'.slice(0, 1 + randomInt(rng, 5))}${i}/file-${randomInt(rng, 1000)}.bin`;
        files[name] = [randomBytes(rng, randomInt(rng, 70_000)), { level: ([0, 6, 9] as const)[randomInt(rng, 3)] }];
      }
      const zip = zipSync(files);
      const expected = unzipSync(zip);
      const entries = listZipEntries(zip);
      expect(entries.map((e) => e.name).sort(), `seed ${seed}`).toEqual(Object.keys(expected).sort());
      for (const entry of entries) {
        expect(entry.size).toBe(expected[entry.name].length);
        // Buffer.equals, not toEqual: vitest compares typed arrays element by element, far too slowly at this size.
        expect(Buffer.from(readZipEntry(zip, entry)).equals(expected[entry.name]), `${entry.name}, seed ${seed}`).toBe(true);
      }
    }
  });

  it('reads ZIP64 records (sizes, offsets and the entry count from the ZIP64 fields)', () => {
    const dev = new TextEncoder().encode('[{"db_id":"zoo"}]');
    const db = new TextEncoder().encode('SQLite format 3\u0000 and some pages');
    const zip = zip64Of([['spider/dev.json', dev], ['spider/database/zoo/zoo.sqlite', db]]);
    const entries = listZipEntries(zip);
    expect(entries.map((e) => [e.name, e.size, e.compressedSize])).toEqual([
      ['spider/dev.json', dev.length, dev.length],
      ['spider/database/zoo/zoo.sqlite', db.length, db.length],
    ]);
    expect(readZipEntry(zip, entries[1])).toEqual(db);
    expect(() => listZipEntries(zip, limits({ maxEntries: 1 }))).toThrow(/it holds 2 entries, more than the 1 allowed/);
  });

  it('reads an empty entry and an empty zip', () => {
    const zip = zipSync({ 'a/empty.txt': zeros(0), 'b.txt': new TextEncoder().encode('hi') });
    const entries = listZipEntries(zip);
    expect(readZipEntry(zip, entries.find((e) => e.name === 'a/empty.txt')!)).toEqual(zeros(0));
    expect(listZipEntries(zipSync({}))).toEqual([]);
  });
});

describe('expansion rules', () => {
  it('refuses a bomb from its directory: over the per-file cap, or inflating more than the ratio allows', () => {
    const bomb = zipOfEntries([['dev.json', new TextEncoder().encode('[]'), false], ['database/b/b.sqlite', zeros(3 * MIB), true]]);
    expect(bomb.length).toBeLessThan(MIB / 50);
    // Default rules: 3 MiB from a few KB is ~1000:1, over the 200:1 allowed above 1 MiB.
    expect(() => listZipEntries(bomb)).toThrow(/entry 'database\/b\/b\.sqlite' inflates \d+ times its compressed size \(3 MiB\), more than the 200:1 allowed: it looks like a zip bomb/);
    expect(() => listZipEntries(bomb, limits({ maxRatio: 1e9, maxEntryBytes: 2 * MIB }))).toThrow(/entry 'database\/b\/b\.sqlite' inflates to 3 MiB, more than the 2 MiB allowed for one file/);
    // Under the ratio floor a high ratio is fine (small files of zeros are ordinary).
    expect(listZipEntries(bomb, limits({ ratioFloorBytes: 4 * MIB })).map((e) => e.size)).toEqual([2, 3 * MIB]);
  });

  it('refuses a zip file over the size cap before reading it (only its first bytes are read)', async () => {
    const head = zipSync({ 'dev.json': new TextEncoder().encode('[]') });
    expect(() => listZipEntries(head, limits({ maxZipBytes: head.length - 1 }))).toThrow(/more than the .* allowed for a zip/);
    const reads: string[] = [];
    const huge = {
      size: ZIP_LIMITS.maxZipBytes + 1,
      slice: (start: number, end: number) => {
        reads.push(`slice ${start}-${end}`);
        return new Blob([head.slice(start, end)]);
      },
      arrayBuffer: () => {
        reads.push('whole file');
        return Promise.reject(new Error('the whole file must not be read'));
      },
    } as unknown as Blob;
    await expect(spiderSourceFromFiles('x', [{ path: 'spider.zip', data: huge }])).rejects.toThrow(/'spider\.zip' is 2048 MiB, more than the 2048 MiB a zip may be here/);
    expect(reads).toEqual(['slice 0-4']);
  });

  it('refuses too many entries (counted before the directory is read) and too much in all', () => {
    const many = zipSync(Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`f${i}.txt`, zeros(10)])));
    expect(() => listZipEntries(many, limits({ maxEntries: 10 }))).toThrow(/it holds 11 entries, more than the 10 allowed/);
    expect(listZipEntries(many, limits({ maxEntries: 11 }))).toHaveLength(11);
    const three = zipSync({ 'a.bin': zeros(400_000), 'b.bin': zeros(400_000), 'c.bin': zeros(400_000) });
    expect(() => listZipEntries(three, limits({ maxTotalBytes: 1_000_000 }))).toThrow(/more than the 0\.954 MiB allowed in all \(reached at entry 'c\.bin'\)/);
  });

  it('stops an entry that inflates past its declared size, and one that inflates short of it', () => {
    const zip = zipOfEntries([['big.bin', zeros(3 * MIB), true]]);
    const lying = declareSize(zip, 'big.bin', 1000);
    const [entry] = listZipEntries(lying);
    expect(entry.size).toBe(1000);
    expect(() => readZipEntry(lying, entry)).toThrow(ZipError);
    expect(() => readZipEntry(lying, entry)).toThrow(/entry 'big\.bin' inflates to more than its declared 1000 bytes/);
    const short = declareSize(zip, 'big.bin', 3 * MIB + 1);
    expect(() => readZipEntry(short, listZipEntries(short, limits({ maxRatio: 1e9 }))[0])).toThrow(/inflates to 3145728 bytes, not its declared 3145729/);
  });

  it('says a damaged zip is damaged', () => {
    const zip = zipSync({ 'dev.json': new TextEncoder().encode('[]'.repeat(100)) });
    expect(() => listZipEntries(zip.slice(0, zip.length - 30))).toThrow(/no end-of-central-directory record|cut short|damaged/);
    expect(() => listZipEntries(new TextEncoder().encode('not a zip at all, just some text'))).toThrow(/no end-of-central-directory record/);
    let error: unknown = null;
    try {
      listZipEntries(zip.slice(0, 10));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ZipError);
    expect((error as ZipError).kind).toBe('damaged');
  });
});

describe("the page's zip source", () => {
  const dev = new TextEncoder().encode('[]');
  const db = new TextEncoder().encode('SQLite format 3\u0000');

  it('refuses two entries with one name, naming the entry (the last dev.json used to win silently)', () => {
    const zip = zipOfEntries([['spider/dev.json', dev, false], ['spider/database/x/x.sqlite', db, false], ['spider/dev.json', new TextEncoder().encode('[{"evil":1}]'), false]]);
    expect(() => zipSpiderSource('spider.zip', zip)).toThrow(DatasetError);
    expect(() => zipSpiderSource('spider.zip', zip)).toThrow(/'spider\.zip' holds two files named 'spider\/dev\.json'/);
  });

  it('refuses names that are one path once normalised, and paths that climb out with ..', () => {
    const twins = zipOfEntries([['spider/dev.json', dev, false], ['./spider\\dev.json', dev, false]]);
    expect(() => zipSpiderSource('twins.zip', twins)).toThrow(/holds two files named 'spider\/dev\.json'/);
    const climbing = zipOfEntries([['spider/dev.json', dev, false], ['spider/database/../../../etc/x.sqlite', db, false]]);
    expect(() => zipSpiderSource('climb.zip', climbing)).toThrow(/'climb\.zip' holds 'spider\/database\/\.\.\/\.\.\/\.\.\/etc\/x\.sqlite', a path that climbs out/);
  });

  it('refuses a bomb with a DatasetError that says what to do, and escapes hostile names in it', () => {
    const bomb = zipOfEntries([['spider/dev.json', dev, false], ['spider/database/b\u001b[2J/b.sqlite', zeros(2 * MIB), true]]);
    const attempt = () => zipSpiderSource('bomb\u001b]0;x\u0007.zip', bomb);
    expect(attempt).toThrow(DatasetError);
    expect(attempt).toThrow(/^'bomb\\x1b\]0;x\\x07\.zip' cannot be imported: entry 'spider\/database\/b\\x1b\[2J\/b\.sqlite' inflates .* zip bomb\. Nothing was imported; .*unzip it and choose the folder/);
  });
});
