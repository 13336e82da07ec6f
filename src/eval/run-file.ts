/**
 * The run file: ONE format for an evaluation run, written by the page's Evaluate export, `sqlenv eval
 * --transcripts`, and the Python client (python/sqlenv_client/runs.py), and read back by Evaluate, Compare and
 * `sqlenv compare`. docs/run-files.md documents every field.
 *
 * Shape: JSON Lines. Line 1 is the header (`format: "sqlenv-run"`, the format's version, the environment version
 * the run was played under, dataset, split, policy, model and adapter ids, settings, seed, episode count); each
 * following line is one episode record (transcript.ts `EpisodeRecord`: question, seed, success, return, reward
 * parts, the transcript). JSONL so a file streams, and each episode is one `json.loads` away in Python.
 *
 * Reading is the one place untrusted runs enter: `parseRunFile` checks sizes before anything is kept, refuses
 * prototype keys, non-finite numbers and wrong types with the line and field named, refuses a file from a newer
 * environment or format version or an unknown dataset, and returns warnings (an older environment version) for
 * the caller to show. A refusal throws `RunFileError` and changes nothing.
 */
import { SPLITS, type SplitSelector } from '../data/types.ts';
import { ENV_VERSION } from '../env/env.ts';
import { buildReport } from './evaluate.ts';
import { array, episodeRecord, finite, integer, isObject, kindOf, name, object, oneOf, RUN_FILE_LIMITS, RunFileError } from './run-file-record.ts';
import type { RunSummary, SavedRun } from './run-store.ts';
import { recordJson, type EpisodeRecord } from './transcript.ts';

export { RUN_FILE_LIMITS, RunFileError } from './run-file-record.ts';

export const RUN_FILE_FORMAT = 'sqlenv-run';
/** The version of this file format (not of the environment): a reader refuses a newer one. */
export const RUN_FILE_VERSION = 1;

/** A setting's value: settings are flat (`temperature: 0.7`, `budget: 10`, `shots: 3`). */
export type RunSetting = string | number | boolean | null;

export interface RunHeader {
  format: typeof RUN_FILE_FORMAT;
  formatVersion: number;
  /** `ENV_VERSION` of the environment that played the episodes (rewards and dynamics change with it). */
  envVersion: number;
  /** The run's id: an import keeps it, so a Compare link naming it opens the same run in another browser. */
  id: string;
  dataset: string;
  split: SplitSelector;
  /** The policy's name as records carry it (`random`, `oracle`, `qwen`, or a Python policy's name). */
  policy: string;
  /** Model id or folder (`Qwen/Qwen3-0.6B`), null for policies without one. */
  model: string | null;
  /** Adapter id or folder, null without one. */
  adapter: string | null;
  /** The evaluation's base seed (episode i of a drawn plan is seeded seed + i). */
  seed: number;
  /** What else shaped the run: sampling settings, step budget, shots. */
  settings: Record<string, RunSetting>;
  /** Episode records that follow the header. */
  episodes: number;
  /** Milliseconds since the epoch. */
  createdAt: number;
  /** Wall-clock duration in milliseconds, null when unknown. */
  durationMs: number | null;
  /** What wrote the file: `page`, `cli`, `python`. */
  writer: string;
}

export interface RunFile {
  header: RunHeader;
  records: EpisodeRecord[];
}

/** Keys that could reach an object's prototype if a later consumer merged the parsed object carelessly. */
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

// ---------------------------------------------------------------------------------------------------- writing

/** The file's text: the header line, then one record per line; every line ends with LF. */
export function toRunFile(header: Omit<RunHeader, 'format' | 'formatVersion' | 'episodes'>, records: readonly EpisodeRecord[]): string {
  const full: RunHeader = { format: RUN_FILE_FORMAT, formatVersion: RUN_FILE_VERSION, ...header, episodes: records.length };
  return [JSON.stringify(full), ...records.map(recordJson)].join('\n') + '\n';
}

/** The header of a run the page or the CLI made, from its summary (settings and model ids as given). */
export function headerOf(summary: RunSummary, writer: string): Omit<RunHeader, 'format' | 'formatVersion' | 'episodes'> {
  return {
    envVersion: summary.envVersion ?? ENV_VERSION,
    id: summary.id,
    dataset: summary.dataset,
    split: summary.split,
    policy: summary.policy,
    model: summary.model ?? null,
    adapter: summary.adapter ?? null,
    seed: summary.seed,
    settings: summary.settings ?? {},
    createdAt: summary.createdAt,
    durationMs: summary.durationMs,
    writer: summary.writer ?? writer,
  };
}

// ---------------------------------------------------------------------------------------------------- reading

export interface ReadOptions {
  /** Datasets the reader can play; a run on another one is refused. Omit to accept any. */
  datasets?: readonly string[];
  onProgress?: (done: number, total: number) => void;
}

export interface ReadRun {
  file: RunFile;
  /** Things the reader accepted but a person must know (an older environment version). */
  warnings: string[];
}

/** A file's size, checked before its text is read. */
export function checkRunFileSize(bytes: number): void {
  if (bytes > RUN_FILE_LIMITS.fileBytes) throw new RunFileError(`The file is ${(bytes / 1e6).toFixed(1)} MB; a run file may be at most ${RUN_FILE_LIMITS.fileBytes / 1024 / 1024} MiB.`);
}

/** Deepest nesting of objects and arrays a run file needs is 7 (record → transcript → step → result → rows → row → BLOB cell). */
const MAX_DEPTH = 16;

/**
 * Refuses a line nested deeper than `MAX_DEPTH` before parsing it: a file of a million `[` parses, but walking it
 * (the reviver, any consumer) would exhaust the stack. A linear scan that skips string contents.
 */
function checkDepth(line: string, lineNumber: number): void {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c) i++; // backslash: skip the escaped character
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) inString = true;
    else if (ch === 0x5b || ch === 0x7b) {
      if (++depth > MAX_DEPTH) throw new RunFileError(`line ${lineNumber} is nested more than ${MAX_DEPTH} levels deep; a run file needs at most 7.`);
    } else if (ch === 0x5d || ch === 0x7d) depth--;
  }
}

function parseLine(line: string, lineNumber: number): unknown {
  checkDepth(line, lineNumber);
  // The reviver costs ~2.5× a plain parse, so it runs only on lines where such a key could be (the text appears).
  const suspect = line.includes('"__proto__"') || line.includes('"constructor"') || line.includes('"prototype"') || line.includes('\\u');
  try {
    if (!suspect) return JSON.parse(line);
    return JSON.parse(line, (key, value: unknown) => {
      if (PROTOTYPE_KEYS.has(key)) throw new RunFileError(`line ${lineNumber} has a key named '${key}', which a run file never holds.`);
      return value;
    });
  } catch (e) {
    if (e instanceof RunFileError) throw e;
    throw new RunFileError(`line ${lineNumber} is not JSON (${e instanceof Error ? e.message.slice(0, 120) : String(e)}).`);
  }
}

function settings(value: unknown): Record<string, RunSetting> {
  const o = object(value, 'header.settings');
  const keys = Object.keys(o);
  if (keys.length > RUN_FILE_LIMITS.settings) throw new RunFileError(`header.settings has ${keys.length} entries; at most ${RUN_FILE_LIMITS.settings} are allowed.`);
  const out: Record<string, RunSetting> = {};
  for (const key of keys) {
    name(key, 'a key of header.settings');
    const v = o[key];
    if (v === null || typeof v === 'boolean') out[key] = v;
    else if (typeof v === 'number') out[key] = finite(v, `header.settings.${key}`);
    else out[key] = name(v, `header.settings.${key}`);
  }
  return out;
}

function header(value: unknown, options: ReadOptions, warnings: string[]): RunHeader {
  if (!isObject(value) || value.format !== RUN_FILE_FORMAT) {
    const legacy = isObject(value) && 'questionId' in value && 'transcript' in value;
    throw new RunFileError(
      legacy
        ? 'This is an episode list without a run header (written by an older `sqlenv eval --transcripts` or Evaluate export): it does not say which environment version played it. Write it again with this version.'
        : `This is not a SQLEnv run file: its first line must be a header with "format": "${RUN_FILE_FORMAT}", got ${isObject(value) ? 'an object without it' : kindOf(value)}.`,
    );
  }
  const formatVersion = integer(value.formatVersion, 'header.formatVersion', 1, Number.MAX_SAFE_INTEGER);
  if (formatVersion > RUN_FILE_VERSION) throw new RunFileError(`This run file is format version ${formatVersion}; this reader knows version ${RUN_FILE_VERSION}. Update SQLEnv to read it.`);
  const envVersion = integer(value.envVersion, 'header.envVersion', 1, Number.MAX_SAFE_INTEGER);
  if (envVersion > ENV_VERSION) throw new RunFileError(`This run was played under environment v${envVersion}; this SQLEnv is v${ENV_VERSION} and cannot judge it. Update SQLEnv to read it.`);
  if (envVersion < ENV_VERSION)
    warnings.push(`This run was played under environment v${envVersion}, not v${ENV_VERSION}: its rewards and dynamics differ, so a difference from a v${ENV_VERSION} run may come from the environment, not the policy.`);
  const dataset = name(value.dataset, 'header.dataset');
  if (options.datasets && !options.datasets.includes(dataset)) throw new RunFileError(`This run is on dataset '${dataset}', which is not loaded here (${options.datasets.join(', ') || 'none'}): load that dataset first.`);
  const nullableName = (v: unknown, where: string): string | null => (v === null || v === undefined ? null : name(v, where));
  return {
    format: RUN_FILE_FORMAT,
    formatVersion,
    envVersion,
    id: name(value.id, 'header.id'),
    dataset,
    split: oneOf<SplitSelector>(value.split, [...SPLITS, 'all'], 'header.split'),
    policy: name(value.policy, 'header.policy'),
    model: nullableName(value.model, 'header.model'),
    adapter: nullableName(value.adapter, 'header.adapter'),
    seed: integer(value.seed, 'header.seed', 0, 2 ** 32 - 1),
    settings: settings(value.settings ?? {}),
    episodes: integer(value.episodes, 'header.episodes', 0, RUN_FILE_LIMITS.episodes),
    createdAt: integer(value.createdAt, 'header.createdAt', 0, 8.64e15),
    durationMs: value.durationMs === null || value.durationMs === undefined ? null : finite(value.durationMs, 'header.durationMs'),
    writer: name(value.writer ?? 'unknown', 'header.writer'),
  };
}

/** Lines of the text, a trailing empty line (the final LF) and CRs of CRLF files left out. */
function lines(textOf: string): string[] {
  const all = textOf.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  while (all.length > 0 && all[all.length - 1].trim() === '') all.pop();
  return all;
}

function checkRecord(record: EpisodeRecord, head: RunHeader, lineNumber: number): void {
  if (record.dataset !== head.dataset) throw new RunFileError(`line ${lineNumber}: the episode is on dataset '${record.dataset}', the header says '${head.dataset}'.`);
  if (head.split !== 'all' && record.split !== head.split) throw new RunFileError(`line ${lineNumber}: the episode is from split '${record.split}', the header says '${head.split}'.`);
  if (record.transcript.length !== record.steps) throw new RunFileError(`line ${lineNumber}: the episode says ${record.steps} steps but its transcript has ${record.transcript.length}.`);
}

/**
 * Reads a run file's text. Yields to the event loop every `chunk` episodes when `yieldEvery` is given (the page,
 * so its progress bar moves); throws `RunFileError` on the first problem.
 */
export async function parseRunFile(textOf: string, options: ReadOptions = {}, yieldEvery?: () => Promise<void>): Promise<ReadRun> {
  checkRunFileSize(textOf.length);
  const all = lines(textOf);
  if (all.length === 0) throw new RunFileError('The file is empty.');
  const warnings: string[] = [];
  const head = header(parseLine(all[0], 1), options, warnings);
  if (all.length - 1 !== head.episodes) throw new RunFileError(`The header says ${head.episodes} episodes; the file has ${all.length - 1} episode lines.`);
  array(all.slice(1), 'the episodes', RUN_FILE_LIMITS.episodes);
  const records: EpisodeRecord[] = [];
  for (let i = 1; i < all.length; i++) {
    const record = episodeRecord(parseLine(all[i], i + 1), `line ${i + 1}`);
    checkRecord(record, head, i + 1);
    records.push(record);
    if (i % 50 === 0) {
      options.onProgress?.(i, head.episodes);
      if (yieldEvery) await yieldEvery();
    }
  }
  options.onProgress?.(head.episodes, head.episodes);
  return { file: { header: head, records }, warnings };
}

/** The saved run an imported file becomes: its summary computed from its records, its ids and settings kept. */
export function savedRunOf(file: RunFile): SavedRun {
  const { header: h, records } = file;
  const { records: _records, ...report } = buildReport(h.policy, h.dataset, { split: h.split, seed: h.seed }, records);
  const summary: RunSummary = {
    ...report,
    id: h.id,
    createdAt: h.createdAt,
    durationMs: h.durationMs ?? 0,
    envVersion: h.envVersion,
    model: h.model,
    adapter: h.adapter,
    settings: h.settings,
    writer: h.writer,
  };
  return { summary, records };
}
