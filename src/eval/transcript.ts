/**
 * Episode records: plain serialisable objects (no class instances, no UI state) that evaluation produces, the UI
 * renders and JSONL export writes, one episode per line.
 */
import type { Difficulty, Split } from '../data/types.ts';
import { formatAction, type ParsedAction } from '../env/actions.ts';
import type { RewardComponents } from '../env/rewards.ts';
import type { ResultView, StepOutcome, StepResult } from '../env/types.ts';
import type { TableInfo } from '../sql/types.ts';
import { blobHex } from '../env/verifier.ts';
import { clipText } from '../env/result-view.ts';
import { VALUE_LIMITS } from '../sql/limits.ts';

export interface TranscriptStep {
  action: ParsedAction;
  /** The action in canonical text form. */
  actionText: string;
  observation: string;
  reward: number;
  components: RewardComponents;
  outcome: StepOutcome;
  /** Rows a SAMPLE or QUERY showed, for rendering as a table. */
  result?: ResultView;
  /** Schema a DESCRIBE showed. */
  table?: TableInfo;
  error?: string;
  /** Return so far, this step included. */
  episodeReturn: number;
  /** The policy's raw text, when it has one (model policies). */
  rawText?: string;
  /** A model policy's generation for this step: new tokens, wall time and speed. */
  generation?: GenerationRecord;
}

/**
 * A model turn's sizes and speeds. `tokensPerSecond` is new tokens over the whole turn; prefill (prompt tokens over
 * the prompt's forward) and decode (new tokens after the first over their own time) are apart when measured.
 */
export interface GenerationRecord {
  newTokens: number;
  seconds: number;
  tokensPerSecond: number;
  cutByLimit: boolean;
  promptTokens?: number;
  prefillTokensPerSecond?: number;
  decodeTokensPerSecond?: number;
}

/** The record of a model turn's statistics (an `LlmTurnStats`, structurally), keeping only what the page shows. */
export function generationRecord(stats: GenerationRecord): GenerationRecord {
  return {
    newTokens: stats.newTokens,
    seconds: stats.seconds,
    tokensPerSecond: stats.tokensPerSecond,
    cutByLimit: stats.cutByLimit,
    ...(stats.promptTokens !== undefined && { promptTokens: stats.promptTokens }),
    ...(stats.prefillTokensPerSecond !== undefined && { prefillTokensPerSecond: stats.prefillTokensPerSecond }),
    ...(stats.decodeTokensPerSecond !== undefined && { decodeTokensPerSecond: stats.decodeTokensPerSecond }),
  };
}

/** The action with its text cut to `max` characters, so a saved step stays small whatever was typed. */
function boundedAction(action: ParsedAction, max: number): ParsedAction {
  switch (action.type) {
    case 'DESCRIBE':
    case 'SAMPLE':
      return { ...action, table: clipText(action.table, max) };
    case 'QUERY':
      return { ...action, sql: clipText(action.sql, max) };
    case 'ANSWER':
      return { ...action, value: clipText(action.value, max) };
    case 'INVALID':
      return { ...action, raw: clipText(action.raw, max) };
    default:
      return action satisfies never;
  }
}

/** The record of one step, from what `step` returned. */
export function transcriptStep(result: StepResult, rawText?: string): TranscriptStep {
  const { observation, info } = result;
  return {
    action: boundedAction(info.action, VALUE_LIMITS.transcriptActionChars),
    // A person can type a 1 MB action; a saved run keeps its start (the UI shows less still).
    actionText: clipText(formatAction(info.action), VALUE_LIMITS.transcriptActionChars),
    observation: observation.text,
    reward: result.reward,
    components: info.components,
    outcome: info.outcome,
    episodeReturn: info.episodeReturn,
    ...(observation.result && { result: observation.result }),
    ...(observation.table && { table: observation.table }),
    ...(observation.error !== undefined && { error: observation.error }),
    ...(rawText !== undefined && { rawText }),
  };
}

export interface EpisodeRecord {
  policy: string;
  dataset: string;
  questionId: string;
  dbId: string;
  question: string;
  difficulty: Difficulty;
  split: Split;
  seed: number;
  success: boolean;
  episodeReturn: number;
  /** Sum over the episode of each unweighted reward component. */
  components: RewardComponents;
  steps: number;
  terminated: boolean;
  truncated: boolean;
  transcript: TranscriptStep[];
}

/** JSON with BLOB cells written as `{ "$blob": "<hex>" }`, as dataset bundles store them. */
export function recordJson(record: EpisodeRecord): string {
  return JSON.stringify(record, (_key, v: unknown) => (v instanceof Uint8Array ? { $blob: blobHex(v) } : v));
}
