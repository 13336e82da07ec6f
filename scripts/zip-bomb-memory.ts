/**
 * `npx tsx scripts/zip-bomb-memory.ts [--mib 1024] [--lie]`: the peak memory of importing a zip bomb in the page's way
 * (spider-source-memory.ts, the same code the Data view runs), printed, never asserted.
 *
 * The bomb is made here, streamed so that making it never holds the inflated bytes: a Spider-layout zip whose
 * `database/bomb/bomb.sqlite` is N MiB of zeros (1 GiB by default: about 1 MB of zip, DEFLATE's ratio limit is
 * ~1030:1) and a dev.json with one question on it. It is imported with a Node SQL worker; the script prints the
 * zip's size, what the import said (refused, or which skip), the time, and the process's peak RSS (worker threads
 * included), which before the zip rules was 3.0 GB (the inflated file, its copy to the worker, sql.js's copy).
 * With --lie the bomb's central directory declares 1 MiB instead of its real size, so the rules that read the
 * directory pass it and the check while inflating must stop it.
 */
import { parseArgs } from 'node:util';
import { Zip, ZipDeflate, ZipPassThrough } from 'fflate';
import { importSpider } from '../src/data/spider.ts';
import { zipSpiderSource } from '../src/data/spider-source-memory.ts';
import { createNodeSqlExecutor } from '../src/sql/node-worker.ts';

const CHUNK = 1 << 20;

/** A zip with `spider/dev.json` and `spider/database/bomb/bomb.sqlite` (`mib` MiB of zeros), made chunk by chunk. */
function makeBomb(mib: number): Uint8Array {
  const parts: Uint8Array[] = [];
  const zip = new Zip((err, data) => {
    if (err) throw err;
    parts.push(data);
  });
  const dev = new ZipPassThrough('spider/dev.json');
  zip.add(dev);
  dev.push(new TextEncoder().encode(JSON.stringify([{ db_id: 'bomb', question: 'How many rows?', query: 'SELECT 1' }])), true);
  const bomb = new ZipDeflate('spider/database/bomb/bomb.sqlite', { level: 9 });
  zip.add(bomb);
  const zeros = new Uint8Array(CHUNK);
  for (let i = 0; i < mib; i++) bomb.push(zeros, i === mib - 1);
  zip.end();
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Rewrites the bomb's inflated size in the central directory (offset 24 of its header) to `bytes`. */
function declareSize(zip: Uint8Array, bytes: number): void {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const name = new TextEncoder().encode('spider/database/bomb/bomb.sqlite');
  for (let at = 0; at + 46 + name.length <= zip.length; at++) {
    if (view.getUint32(at, true) !== 0x02014b50 || view.getUint16(at + 28, true) !== name.length) continue;
    if (name.every((b, i) => zip[at + 46 + i] === b)) view.setUint32(at + 24, bytes, true);
  }
}

const { values } = parseArgs({ options: { mib: { type: 'string', default: '1024' }, lie: { type: 'boolean', default: false } } });
const mib = Number(values.mib);
const zip = makeBomb(mib);
if (values.lie) declareSize(zip, CHUNK);
const rssBefore = process.resourceUsage().maxRSS;
const executor = createNodeSqlExecutor();
const started = performance.now();
let outcome: string;
try {
  const { report } = await importSpider(zipSpiderSource('bomb.zip', zip), executor);
  outcome = `imported: ${report.kept} kept, skipped ${JSON.stringify(report.skippedQuestions.map((s) => `${s.reason}: ${s.detail}`))}`;
} catch (e) {
  outcome = `refused: ${(e as Error).message}`;
} finally {
  await executor.close();
}
const seconds = (performance.now() - started) / 1000;
const mb = (kib: number): string => `${(kib / 1024).toFixed(0)} MB`;
process.stdout.write(
  [
    `zip: ${(zip.length / 1024).toFixed(0)} KB holding ${mib} MiB of zeros${values.lie ? ', declared as 1 MiB' : ''}`,
    `outcome: ${outcome}`,
    `time: ${seconds.toFixed(2)} s`,
    `peak RSS after making the zip: ${mb(rssBefore)}; peak RSS over the import: ${mb(process.resourceUsage().maxRSS)}`,
  ].join('\n') + '\n',
);
