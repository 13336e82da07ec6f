/**
 * `npm run data:demo`: generates the demo dataset (src/data/demo) and writes its bundle — manifest.json and
 * db/<id>.sqlite — into public/bundles/demo, where the dev server and the build pick it up. Deterministic: the same
 * seed writes the same bytes. Prints how many questions fall in each split, difficulty and database, and how many
 * questions the grouped split (src/data/split.ts) moved relative to the SQL-only rule.
 *
 *   tsx scripts/gen-demo.ts [--out DIR] [--seed N]
 */
import { fileURLToPath } from 'node:url';
import { writeBundleFolder } from '../src/data/bundle-node.ts';
import { buildDemoDataset, DEMO_SEED, demoSplitMoves } from '../src/data/demo/build.ts';
import { formatSplitMoves } from '../src/data/split.ts';
import { DIFFICULTIES, SPLITS, type Dataset } from '../src/data/types.ts';

const DEFAULT_OUT = fileURLToPath(new URL('../public/bundles/demo', import.meta.url));
const USAGE = 'usage: tsx scripts/gen-demo.ts [--out DIR] [--seed N]';

class UsageError extends Error {}

function parseArgs(argv: readonly string[]): { out: string; seed: number } {
  let out = DEFAULT_OUT;
  let seed = DEMO_SEED;
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = argv[i + 1];
    if (flag === '--help' || flag === '-h') {
      console.log(USAGE);
      process.exit(0);
    } else if (flag === '--out' || flag === '--seed') {
      if (value === undefined || value.startsWith('--')) throw new UsageError(`${flag} needs a value`);
      if (flag === '--out') out = value;
      else if (!/^\d+$/.test(value) || Number(value) > 0xffffffff) throw new UsageError(`--seed must be an integer in [0, 2^32), not '${value}'`);
      else seed = Number(value);
      i++;
    } else {
      throw new UsageError(`unknown argument '${flag}'`);
    }
  }
  return { out, seed };
}

/** A text table of question counts: one row per database plus a total, one column per difficulty and split. */
function countsTable(dataset: Dataset): string {
  const splits = SPLITS.filter((s) => dataset.questions.some((q) => q.split === s));
  const header = ['database', ...DIFFICULTIES, ...splits, 'total'];
  const rowFor = (label: string, dbId: string | null): string[] => {
    const qs = dataset.questions.filter((q) => dbId === null || q.dbId === dbId);
    return [label, ...DIFFICULTIES.map((d) => qs.filter((q) => q.difficulty === d).length), ...splits.map((s) => qs.filter((q) => q.split === s).length), qs.length].map(String);
  };
  const rows = [header, ...dataset.databases.map((db) => rowFor(db.id, db.id)), rowFor('all', null)];
  const widths = header.map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  return rows.map((r) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  ')).join('\n');
}

async function main(): Promise<void> {
  const { out, seed } = parseArgs(process.argv.slice(2));
  const dataset = await buildDemoDataset({ seed });
  await writeBundleFolder(out, dataset);
  console.log(`Demo dataset (seed ${seed}): ${dataset.databases.length} databases, ${dataset.questions.length} questions → ${out}`);
  console.log(countsTable(dataset));
  console.log(formatSplitMoves(demoSplitMoves(dataset)));
}

main().catch((e: unknown) => {
  if (e instanceof UsageError) console.error(`gen-demo: ${e.message}\n${USAGE}`);
  else console.error(`gen-demo: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(e instanceof UsageError ? 2 : 1);
});
