/**
 * The Engines panel's measurement: the same prompt, greedy, on the WebGPU engine and on transformers.js, each warmed
 * up and then timed over a few rounds (engine-speed.ts), one backend after the other. The prompt is the chat a
 * policy's first turn would send (system + a question), cut or padded to `promptTokens`, through the engine's
 * tokenizer (both backends share Qwen's).
 */
import type { Generate } from '../policies/llm/llm-policy.ts';
import type { Tokenizer } from '../model/tokenizer.ts';
import { measureGenerate, type SpeedFigures } from './engine-speed.ts';

export interface EngineCompareRequest {
  /** Prompt length in tokens (default 64). */
  promptTokens?: number;
  /** New tokens per round (default 32). */
  newTokens?: number;
  /** Timed rounds per backend (default 3). */
  rounds?: number;
}

export interface EngineRow {
  /** 'WebGPU engine' or 'transformers.js'. */
  backend: string;
  /** Device and weights, e.g. "WebGPU (vendor/arch), q4" or "wasm, fp32". */
  detail: string;
  median: SpeedFigures;
  rounds: SpeedFigures[];
}

export interface EngineComparison {
  promptTokens: number;
  newTokens: number;
  rows: EngineRow[];
  /** Whether both produced the same greedy tokens (null with one backend). */
  sameTokens: boolean | null;
}

export interface Contender {
  backend: string;
  detail: string;
  generate: Generate;
}

export const MAX_COMPARE_TOKENS = 1024;

/** The prompt both backends get: a chat asking for a long answer, `n` tokens exactly (repeated or cut). */
export function comparePrompt(tokenizer: Tokenizer, n: number): number[] {
  const chat = tokenizer.encodeChat([{ role: 'user', content: 'List the tables of a SQLite database about concerts and singers, and describe each column in detail.' }], { addGenerationPrompt: true });
  const ids: number[] = [];
  while (ids.length < n) ids.push(...chat);
  return ids.slice(ids.length - n); // ends as the chat does: the assistant's turn starts
}

function checkCount(name: string, v: number): void {
  if (!Number.isInteger(v) || v < 1 || v > MAX_COMPARE_TOKENS) throw new RangeError(`${name} must be a whole number from 1 to ${MAX_COMPARE_TOKENS}, not ${v}.`);
}

/** Runs the measurement on each contender, in order; see the header. */
export async function compareEngines(tokenizer: Tokenizer, contenders: readonly Contender[], request: EngineCompareRequest = {}, signal?: AbortSignal): Promise<EngineComparison> {
  const promptTokens = request.promptTokens ?? 64;
  const newTokens = request.newTokens ?? 32;
  const rounds = request.rounds ?? 3;
  checkCount('The prompt length', promptTokens);
  checkCount('The new tokens', newTokens);
  if (!Number.isInteger(rounds) || rounds < 1 || rounds > 10) throw new RangeError(`Rounds must be from 1 to 10, not ${rounds}.`);
  if (contenders.length === 0) throw new RangeError('Load a model in at least one backend first.');
  const ids = comparePrompt(tokenizer, promptTokens);
  const rows: EngineRow[] = [];
  const outputs: number[][] = [];
  for (const c of contenders) {
    const m = await measureGenerate(c.generate, ids, { newTokens, rounds, signal });
    rows.push({ backend: c.backend, detail: c.detail, median: m.median, rounds: m.rounds });
    outputs.push(m.tokens);
  }
  const sameTokens = outputs.length < 2 ? null : outputs.every((o) => o.length === outputs[0].length && o.every((t, i) => t === outputs[0][i]));
  return { promptTokens, newTokens, rows, sameTokens };
}
