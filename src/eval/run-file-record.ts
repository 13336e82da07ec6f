/**
 * Checks one episode record read from a run file (untrusted JSON) and rebuilds it as an `EpisodeRecord` holding
 * only the fields the format names (docs/run-files.md), so nothing unknown (`__proto__`, extra keys, huge extras)
 * reaches the page. Every check names the field at fault; the caller adds the line number.
 *
 * How to think about it: the walk follows the record's schema, never the data, so a deeply nested or huge value in
 * an unknown key costs nothing and a known key holding one is refused at its first wrong type. Strings are checked
 * against `RUN_FILE_LIMITS` before they are kept; numbers must be finite (JSON has no NaN, but 1e999 is Infinity).
 */
import { DIFFICULTIES, SPLITS, type Difficulty, type Split } from '../data/types.ts';
import type { ParsedAction } from '../env/actions.ts';
import type { RewardComponents } from '../env/rewards.ts';
import type { ResultView, StepOutcome } from '../env/types.ts';
import type { SqlValue, TableInfo } from '../sql/types.ts';
import type { EpisodeRecord, GenerationRecord, TranscriptStep } from './transcript.ts';

/** Bounds on what a run file may hold; a file past one is refused with the bound named. */
export const RUN_FILE_LIMITS = {
  /** Bytes of a whole file (checked from the file's size before it is read). */
  fileBytes: 128 * 1024 * 1024,
  /** Episodes in one run (Spider's whole dev set is ~1,000 questions; ten seeds each still fit). */
  episodes: 20_000,
  /** Steps of one episode (the default budget is 10; `--budget` may raise it). */
  steps: 1_000,
  /** Characters of an id, a name or a label (policy, dataset, question id, model id). */
  nameChars: 1_024,
  /** Characters of a text field (a question, an observation, an action, a model's raw text). */
  textChars: 1_000_000,
  /** Rows and columns of a result a step kept, and columns of a described table. */
  resultRows: 10_000,
  resultColumns: 2_000,
  /** Entries of a run's settings. */
  settings: 200,
} as const;

export class RunFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RunFileError';
  }
}

type Json = Record<string, unknown>;

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function object(value: unknown, where: string): Json {
  if (!isObject(value)) throw new RunFileError(`${where} must be an object, got ${kindOf(value)}.`);
  return value;
}

export function kindOf(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value === 'string' ? 'a string' : typeof value;
}

export function text(value: unknown, where: string, max: number = RUN_FILE_LIMITS.textChars): string {
  if (typeof value !== 'string') throw new RunFileError(`${where} must be a string, got ${kindOf(value)}.`);
  if (value.length > max) throw new RunFileError(`${where} has ${value.length} characters; at most ${max} are allowed.`);
  return value;
}

export function name(value: unknown, where: string): string {
  return text(value, where, RUN_FILE_LIMITS.nameChars);
}

export function finite(value: unknown, where: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new RunFileError(`${where} must be a finite number, got ${typeof value === 'number' ? String(value) : kindOf(value)}.`);
  return value;
}

export function integer(value: unknown, where: string, min: number, max: number): number {
  const n = finite(value, where);
  if (!Number.isInteger(n) || n < min || n > max) throw new RunFileError(`${where} must be an integer in [${min}, ${max}], got ${n}.`);
  return n;
}

export function boolean(value: unknown, where: string): boolean {
  if (typeof value !== 'boolean') throw new RunFileError(`${where} must be true or false, got ${kindOf(value)}.`);
  return value;
}

export function oneOf<T extends string>(value: unknown, allowed: readonly T[], where: string): T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) throw new RunFileError(`${where} must be one of ${allowed.join(', ')}, got ${typeof value === 'string' ? `'${value.slice(0, 40)}'` : kindOf(value)}.`);
  return value as T;
}

export function array(value: unknown, where: string, max: number): unknown[] {
  if (!Array.isArray(value)) throw new RunFileError(`${where} must be an array, got ${kindOf(value)}.`);
  if (value.length > max) throw new RunFileError(`${where} has ${value.length} entries; at most ${max} are allowed.`);
  return value;
}

function components(value: unknown, where: string): RewardComponents {
  const o = object(value, where);
  return { correctness: finite(o.correctness, `${where}.correctness`), progress: finite(o.progress, `${where}.progress`), operational: finite(o.operational, `${where}.operational`) };
}

const OUTCOMES: readonly StepOutcome[] = ['ok', 'nothing-new', 'content-free', 'repeat', 'error'];
const HEX = /^(?:[0-9a-fA-F]{2})*$/;

/** A result cell: number, string, null, or a BLOB written `{ "$blob": "<hex>" }` (decoded here). */
function cell(value: unknown, where: string): SqlValue {
  if (value === null || typeof value === 'string') return value === null ? null : text(value, where);
  if (typeof value === 'number') return finite(value, where);
  const o = object(value, where);
  const hex = text(o.$blob, `${where}.$blob`);
  if (!HEX.test(hex)) throw new RunFileError(`${where}.$blob must be hexadecimal digits in pairs.`);
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

function result(value: unknown, where: string): ResultView {
  const o = object(value, where);
  const columns = array(o.columns, `${where}.columns`, RUN_FILE_LIMITS.resultColumns).map((c, i) => name(c, `${where}.columns[${i}]`));
  const rows = array(o.rows, `${where}.rows`, RUN_FILE_LIMITS.resultRows).map((row, i) => array(row, `${where}.rows[${i}]`, RUN_FILE_LIMITS.resultColumns).map((c, j) => cell(c, `${where}.rows[${i}][${j}]`)));
  const totalRows = o.totalRows === null ? null : integer(o.totalRows, `${where}.totalRows`, 0, Number.MAX_SAFE_INTEGER);
  return { columns, rows, totalRows };
}

function table(value: unknown, where: string): TableInfo {
  const o = object(value, where);
  return {
    name: name(o.name, `${where}.name`),
    columns: array(o.columns, `${where}.columns`, RUN_FILE_LIMITS.resultColumns).map((c, i) => {
      const col = object(c, `${where}.columns[${i}]`);
      const at = `${where}.columns[${i}]`;
      return { name: name(col.name, `${at}.name`), type: name(col.type, `${at}.type`), notNull: boolean(col.notNull, `${at}.notNull`), primaryKey: integer(col.primaryKey, `${at}.primaryKey`, 0, RUN_FILE_LIMITS.resultColumns) };
    }),
    foreignKeys: array(o.foreignKeys, `${where}.foreignKeys`, RUN_FILE_LIMITS.resultColumns).map((f, i) => {
      const fk = object(f, `${where}.foreignKeys[${i}]`);
      const at = `${where}.foreignKeys[${i}]`;
      return { column: name(fk.column, `${at}.column`), refTable: name(fk.refTable, `${at}.refTable`), refColumn: fk.refColumn === null ? null : name(fk.refColumn, `${at}.refColumn`) };
    }),
    rowCount: integer(o.rowCount, `${where}.rowCount`, 0, Number.MAX_SAFE_INTEGER),
  };
}

function action(value: unknown, where: string): ParsedAction {
  const o = object(value, where);
  const type = oneOf(o.type, ['DESCRIBE', 'SAMPLE', 'QUERY', 'ANSWER', 'INVALID'] as const, `${where}.type`);
  switch (type) {
    case 'DESCRIBE':
    case 'SAMPLE':
      return { type, table: text(o.table, `${where}.table`) };
    case 'QUERY':
      return { type, sql: text(o.sql, `${where}.sql`) };
    case 'ANSWER':
      return { type, value: text(o.value, `${where}.value`) };
    case 'INVALID':
      return { type, raw: text(o.raw, `${where}.raw`), reason: text(o.reason, `${where}.reason`) };
    default:
      return type satisfies never;
  }
}

function generation(value: unknown, where: string): GenerationRecord {
  const o = object(value, where);
  const optional = (key: 'promptTokens' | 'prefillTokensPerSecond' | 'decodeTokensPerSecond') => (o[key] === undefined ? {} : { [key]: finite(o[key], `${where}.${key}`) });
  return {
    newTokens: integer(o.newTokens, `${where}.newTokens`, 0, Number.MAX_SAFE_INTEGER),
    seconds: finite(o.seconds, `${where}.seconds`),
    tokensPerSecond: finite(o.tokensPerSecond, `${where}.tokensPerSecond`),
    cutByLimit: boolean(o.cutByLimit, `${where}.cutByLimit`),
    ...optional('promptTokens'),
    ...optional('prefillTokensPerSecond'),
    ...optional('decodeTokensPerSecond'),
  };
}

function step(value: unknown, where: string): TranscriptStep {
  const o = object(value, where);
  return {
    action: action(o.action, `${where}.action`),
    actionText: text(o.actionText, `${where}.actionText`),
    observation: text(o.observation, `${where}.observation`),
    reward: finite(o.reward, `${where}.reward`),
    components: components(o.components, `${where}.components`),
    outcome: oneOf(o.outcome, OUTCOMES, `${where}.outcome`),
    episodeReturn: finite(o.episodeReturn, `${where}.episodeReturn`),
    ...(o.result !== undefined && o.result !== null && { result: result(o.result, `${where}.result`) }),
    ...(o.table !== undefined && o.table !== null && { table: table(o.table, `${where}.table`) }),
    ...(o.error !== undefined && o.error !== null && { error: text(o.error, `${where}.error`) }),
    ...(o.rawText !== undefined && o.rawText !== null && { rawText: text(o.rawText, `${where}.rawText`) }),
    ...(o.generation !== undefined && o.generation !== null && { generation: generation(o.generation, `${where}.generation`) }),
  };
}

/** One episode record, checked field by field and rebuilt from the known fields only. */
export function episodeRecord(value: unknown, where = 'episode'): EpisodeRecord {
  const o = object(value, where);
  return {
    policy: name(o.policy, `${where}.policy`),
    dataset: name(o.dataset, `${where}.dataset`),
    questionId: name(o.questionId, `${where}.questionId`),
    dbId: name(o.dbId, `${where}.dbId`),
    question: text(o.question, `${where}.question`),
    difficulty: oneOf<Difficulty>(o.difficulty, DIFFICULTIES, `${where}.difficulty`),
    split: oneOf<Split>(o.split, SPLITS, `${where}.split`),
    seed: integer(o.seed, `${where}.seed`, 0, 2 ** 32 - 1),
    success: boolean(o.success, `${where}.success`),
    episodeReturn: finite(o.episodeReturn, `${where}.episodeReturn`),
    components: components(o.components, `${where}.components`),
    steps: integer(o.steps, `${where}.steps`, 0, RUN_FILE_LIMITS.steps),
    terminated: boolean(o.terminated, `${where}.terminated`),
    truncated: boolean(o.truncated, `${where}.truncated`),
    transcript: array(o.transcript, `${where}.transcript`, RUN_FILE_LIMITS.steps).map((s, i) => step(s, `${where}.transcript[${i}]`)),
  };
}
