/**
 * The SQLEnv split. Ten curated Spider databases give `train` and `eval`; every other database is `heldout`.
 * Questions are split by their gold SQL, not one by one: Spider asks most queries twice in other words, and a
 * paraphrase in train would leak the answer of its twin in eval. The split depends only on (db_id, gold SQL), so it
 * is the same on every machine and does not shift when questions are added.
 */
import { hashString } from './rng.ts';
import type { Split } from './types.ts';

export const CURATED_DATABASES: readonly string[] = [
  'world_1',
  'car_1',
  'cre_Doc_Template_Mgt',
  'dog_kennels',
  'flight_2',
  'student_transcripts_tracking',
  'tvshow',
  'network_1',
  'concert_singer',
  'pets_1',
];

export const TRAIN_PERCENT = 70;

/** Gold SQL reduced to what identifies the query: case, whitespace and a trailing ';' do not count. */
export function normalizeGoldSql(sql: string): string {
  return sql.trim().replace(/;+\s*$/, '').replace(/\s+/g, ' ').toLowerCase();
}

/** `train` or `eval` for a question of a curated database (~70/30 by a hash of its gold SQL). */
export function trainEvalSplit(dbId: string, goldSql: string): 'train' | 'eval' {
  return hashString(`${dbId}\u0000${normalizeGoldSql(goldSql)}`) % 100 < TRAIN_PERCENT ? 'train' : 'eval';
}

export function sqlenvSplit(dbId: string, goldSql: string, curated: readonly string[] = CURATED_DATABASES): Split {
  return curated.includes(dbId) ? trainEvalSplit(dbId, goldSql) : 'heldout';
}
