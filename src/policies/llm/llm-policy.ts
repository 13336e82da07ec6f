/**
 * A language model as a policy. Each turn: build the chat (prompt.ts) from the episode so far and the shots, fit it
 * to the context, hand its token ids to the injected `generate` (the WebGPU engine in the app, a script in tests),
 * parse the completion (parse.ts) and return the action with the raw text, thinking included.
 *
 * The text generator is the only model-specific part, so this file runs unchanged on any engine. `generate` must
 * stop at `<|im_end|>` / `<|endoftext|>` or after `maxNewTokens` new tokens; a reply that reaches the limit
 * without an end token counts as cut off. Sampling is seeded from the episode's generator, so one seed gives one
 * episode. Malformed replies never throw: they become invalid actions, which cost a step in the environment.
 *
 * Progress: when the context has `onProgress`, the turn reports the prompt's size at once (0 new tokens), then each
 * count of new tokens the engine streams through `onToken`, so a page can show "Generating… N tokens".
 */
import type { ParsedAction } from '../../env/actions.ts';
import { DEFAULT_CONTEXT_TOKENS } from '../../model/context.ts';
import type { Tokenizer } from '../../model/tokenizer.ts';
import type { Policy, PolicyContext, PolicyDecision } from '../policy.ts';
import { parseCompletion, type ParseOptions, type ParsedCompletion } from './parse.ts';
import { buildPrompt, stepsFromHistory, type Shot } from './prompt.ts';
import { samplingDefaults } from './sampling-defaults.ts';

export interface GenerateOptions {
  /** Per-turn token limit. */
  maxNewTokens: number;
  /** 0 means greedy. */
  temperature: number;
  topP: number;
  /** Seed of the sampler for this turn (uint32). */
  seed: number;
  /** Called as tokens come: the count of new tokens so far (engines that stream; others may never call it). */
  onToken?: (newTokens: number) => void;
}

export interface Generation {
  /** New token ids only (not the prompt), end token included when the model produced one. */
  tokenIds: number[];
  /** The new tokens as text. */
  text: string;
  /** Log-probability of each new token under the sampling distribution used. */
  logProbs?: number[];
  /** Time of the prompt's forward and the first new token (engines that measure it). */
  prefillSeconds?: number;
  /** Time of every later new token (engines that measure it). */
  decodeSeconds?: number;
  /** Prompt tokens the engine computed for this reply; the rest came from its cache (engines that reuse one). */
  prefillTokens?: number;
}

export type Generate = (promptTokenIds: number[], options: GenerateOptions) => Promise<Generation>;

export interface LlmPolicyOptions {
  generate: Generate;
  tokenizer: Tokenizer;
  /** Few-shot examples (`buildOracleShots`); [] for zero-shot. */
  shots?: readonly Shot[];
  /** Qwen3 thinking; default false. */
  thinking?: boolean;
  /** Per-turn token limit; default `samplingDefaults(thinking)` (sampling-defaults.ts). */
  maxNewTokens?: number;
  /** Context length the prompt and the reply share; default DEFAULT_CONTEXT_TOKENS (model/context.ts). */
  contextTokens?: number;
  /** Default `samplingDefaults(thinking)`, Qwen3's recommendation. */
  temperature?: number;
  /** Default `samplingDefaults(thinking)`, Qwen3's recommendation. */
  topP?: number;
  multipleCalls?: ParseOptions['multipleCalls'];
  /** Shown in records and lists; default 'qwen'. */
  name?: string;
  /** Episodes `generate` decodes well at once (its batch); default 1. */
  concurrency?: number;
}

/** How a model plays: the Model panel's settings (workers/llm-settings.ts fills their defaults and checks them). */
export interface LlmPlaySettings {
  thinking: boolean;
  maxNewTokens: number;
  temperature: number;
  topP: number;
}

/** What a backend brings to a policy: the page's WebGPU engine or transformers.js, the CLI's batch decoder. */
export interface LlmBackend {
  generate: Generate;
  tokenizer: Tokenizer;
  /** S the backend planned for (model/context.ts `contextTokensFor`). */
  contextTokens: number;
  /** Episodes it decodes well at once (1 for a backend that generates one reply at a time). */
  concurrency: number;
}

export interface LlmTurnStats {
  promptTokens: number;
  newTokens: number;
  /** Wall time of `generate`, prefill included. */
  seconds: number;
  /** New tokens per second of wall time (prefill included); 0 when no time was measured. */
  tokensPerSecond: number;
  /** Prompt tokens per second of the prefill (the prompt's forward and the first new token); absent unless measured. */
  prefillTokensPerSecond?: number;
  /** Tokens per second of decode alone (new tokens after the first, prefill excluded); absent unless measured. */
  decodeTokensPerSecond?: number;
  /** The reply reached the token limit without an end token. */
  cutByLimit: boolean;
  truncatedOutputs: number;
  droppedShots: number;
  /** The prompt fit its budget (contextTokens − maxNewTokens). */
  promptFits: boolean;
}

/** A `PolicyDecision` with what a model turn adds: the parse, the tokens and their statistics. */
export interface LlmDecision extends PolicyDecision {
  /** The action as parsed here, with the reason when invalid (the environment parses `action` again). */
  parsed: ParsedAction;
  completion: ParsedCompletion;
  stats: LlmTurnStats;
  promptTokenIds: number[];
  tokenIds: number[];
  logProbs?: number[];
}

/** A uint32 sampler seed from the episode's generator. */
function turnSeed(context: PolicyContext): number {
  return Math.floor(context.rng.next() * 2 ** 32) >>> 0;
}

export class LlmPolicy implements Policy {
  readonly name: string;
  readonly concurrency: number;
  private readonly options: LlmPolicyOptions;
  private readonly endTokens: ReadonlySet<number>;

  constructor(options: LlmPolicyOptions) {
    this.options = options;
    this.name = options.name ?? 'qwen';
    this.concurrency = options.concurrency ?? 1;
    this.endTokens = new Set([options.tokenizer.special.imEnd, options.tokenizer.special.endOfText]);
  }

  get maxNewTokens(): number {
    return this.options.maxNewTokens ?? samplingDefaults(this.options.thinking ?? false).maxNewTokens;
  }

  async act(context: PolicyContext): Promise<LlmDecision> {
    const { tokenizer, thinking = false } = this.options;
    const maxNewTokens = this.maxNewTokens;
    const contextTokens = this.options.contextTokens ?? DEFAULT_CONTEXT_TOKENS;
    const prompt = buildPrompt(
      tokenizer,
      { first: context.first.text, steps: stepsFromHistory(context.history) },
      { shots: this.options.shots ?? [], thinking, budgetTokens: contextTokens - maxNewTokens },
    );
    const defaults = samplingDefaults(thinking);
    const generateOptions: GenerateOptions = {
      maxNewTokens,
      temperature: this.options.temperature ?? defaults.temperature,
      topP: this.options.topP ?? defaults.topP,
      seed: turnSeed(context),
    };
    const { onProgress } = context;
    if (onProgress) {
      const promptTokens = prompt.tokenIds.length;
      onProgress({ promptTokens, newTokens: 0, maxNewTokens });
      generateOptions.onToken = (newTokens) => onProgress({ promptTokens, newTokens, maxNewTokens });
    }
    const started = performance.now();
    const generation = await this.options.generate(prompt.tokenIds, generateOptions);
    const seconds = (performance.now() - started) / 1000;
    const last = generation.tokenIds.at(-1);
    const cutByLimit = generation.tokenIds.length >= maxNewTokens && (last === undefined || !this.endTokens.has(last));
    const completion = parseCompletion(generation.text, { cutByLimit, maxNewTokens, multipleCalls: this.options.multipleCalls });
    const newTokens = generation.tokenIds.length;
    return {
      action: completion.action,
      rawText: generation.text,
      parsed: completion.action,
      completion,
      stats: {
        promptTokens: prompt.tokenIds.length,
        newTokens,
        seconds,
        tokensPerSecond: seconds > 0 ? newTokens / seconds : 0,
        ...(generation.prefillSeconds !== undefined && generation.prefillSeconds > 0 && { prefillTokensPerSecond: prompt.tokenIds.length / generation.prefillSeconds }),
        ...(generation.decodeSeconds !== undefined && generation.decodeSeconds > 0 && newTokens > 1 && { decodeTokensPerSecond: (newTokens - 1) / generation.decodeSeconds }),
        cutByLimit,
        truncatedOutputs: prompt.truncatedOutputs,
        droppedShots: prompt.droppedShots,
        promptFits: prompt.fits,
      },
      promptTokenIds: prompt.tokenIds,
      tokenIds: generation.tokenIds,
      ...(generation.logProbs && { logProbs: generation.logProbs }),
    };
  }
}

/**
 * The one settings → policy mapping. Watch, Evaluate and Compare (through the page's model services, either backend)
 * and `sqlenv eval --policy qwen` all make their model policy here, so one set of settings plays the same way
 * everywhere; only what the backend brings (its generate, context and batch) differs.
 */
export function createLlmPolicy(settings: LlmPlaySettings, backend: LlmBackend, play: { shots: readonly Shot[]; name: string }): LlmPolicy {
  return new LlmPolicy({
    generate: backend.generate,
    tokenizer: backend.tokenizer,
    contextTokens: backend.contextTokens,
    concurrency: backend.concurrency,
    shots: play.shots,
    name: play.name,
    thinking: settings.thinking,
    maxNewTokens: settings.maxNewTokens,
    temperature: settings.temperature,
    topP: settings.topP,
  });
}
