/**
 * `sqlenv exec-match`: strict execution match of predicted SQL against gold SQL on Spider databases. Reads JSON lines
 * `{"db_id", "gold", "pred"}` on stdin and writes, in order, one `{"match": bool, "error": string|null}` per line.
 * `error` says why a pair could not be compared (bad input line, unknown database, gold or predicted SQL failed);
 * a predicted query that fails is simply no match.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { spiderDirFromEnv } from '../data/load-node.ts';
import { executionMatch } from '../env/verifier.ts';
import { hasOrderBy } from '../sql/order-by.ts';
import { createNodeSqlExecutor } from '../sql/node-worker.ts';
import type { SqlExecutor } from '../sql/executor.ts';
import { UsageError } from './args.ts';
import { VALUE_LIMITS } from '../sql/limits.ts';

export const EXEC_MATCH_USAGE = 'sqlenv exec-match < pairs.jsonl   (lines of {"db_id", "gold", "pred"}; reads SPIDER_DIR)';

interface MatchLine {
  match: boolean;
  error: string | null;
}

function parsePair(line: string): { dbId: string; gold: string; pred: string } | string {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (e) {
    return `bad input line: ${(e as Error).message}`;
  }
  if (typeof value !== 'object' || value === null) return 'bad input line: expected a JSON object';
  const { db_id: dbId, gold, pred } = value as Record<string, unknown>;
  if (typeof dbId !== 'string' || typeof gold !== 'string' || typeof pred !== 'string') return 'bad input line: needs string fields db_id, gold and pred';
  return { dbId, gold, pred };
}

async function matchOne(executor: SqlExecutor, spiderDir: string, loaded: Set<string>, line: string): Promise<MatchLine> {
  const pair = parsePair(line);
  if (typeof pair === 'string') return { match: false, error: pair };
  if (!loaded.has(pair.dbId)) {
    const file = join(spiderDir, 'database', pair.dbId, `${pair.dbId}.sqlite`);
    if (!/^[\w-]+$/.test(pair.dbId) || !existsSync(file)) return { match: false, error: `unknown database '${pair.dbId}' (no ${file})` };
    await executor.load(pair.dbId, new Uint8Array(await readFile(file)));
    loaded.add(pair.dbId);
  }
  let gold;
  try {
    gold = await executor.query(pair.dbId, pair.gold);
  } catch (e) {
    return { match: false, error: `gold SQL failed: ${(e as Error).message}` };
  }
  try {
    const pred = await executor.query(pair.dbId, pair.pred);
    if (gold.truncated || pred.truncated) {
      const why = (gold.truncatedBy ?? pred.truncatedBy) === 'chars' ? `over ${VALUE_LIMITS.resultChars} characters` : `over ${VALUE_LIMITS.rows} rows`;
      return { match: false, error: `result too large to compare (${why})` };
    }
    return { match: executionMatch(gold, pred, hasOrderBy(pair.gold)), error: null };
  } catch (e) {
    return { match: false, error: `pred SQL failed: ${(e as Error).message}` };
  }
}

export async function execMatchCommand(argv: string[]): Promise<number> {
  if (argv.length > 0) throw new UsageError(`exec-match takes no arguments, got: ${argv.join(' ')}`);
  const spiderDir = spiderDirFromEnv();
  const executor = createNodeSqlExecutor();
  const loaded = new Set<string>();
  try {
    for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
      if (line.trim() === '') continue;
      process.stdout.write(`${JSON.stringify(await matchOne(executor, spiderDir, loaded, line))}\n`);
    }
    return 0;
  } finally {
    await executor.close();
  }
}
