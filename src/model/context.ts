/**
 * The context a model policy plays in when nobody asks for another: S, the positions prompt and reply share (the
 * KV cache's length per sequence). One constant for the page's two backends (the WebGPU engine, transformers.js),
 * the CLI (`eval`, `explain`, `export`), the load-time memory check and `LlmPolicy` itself.
 *
 * Why 2,048 and not 4,096 (both were defaults before):
 * - Qwen3-0.6B supports 32,768 native positions (40,960 in its config), so either fits the model; a model with fewer
 *   positions gets its own maximum (`contextTokensFor`).
 * - It is what training plays: GRPO and SFT episodes are at most `maxEpisodeTokens` = 2,048 tokens (train/types.ts),
 *   and `sqlenv export` sizes TRL's prompts and demonstrations for the same context, so a trained adapter is
 *   evaluated in prompts as long as those it learned on.
 * - Memory: the KV cache of Qwen3-0.6B (28 layers × 2 × 8 KV heads × 128 × 2 bytes in f16) is 114,688 bytes a
 *   position, 235 MB a sequence at 2,048 and twice that at 4,096, for every decode slot (decode-slots.ts fits up to 8).
 * - A prompt longer than its budget (S − the per-turn token limit) is fitted by dropping shots and shortening old
 *   observations (policies/llm/prompt.ts): a smaller S costs the oldest context first.
 */
import type { ModelConfig } from './config.ts';

/** S when none is asked for, in tokens (see the header for why). */
export const DEFAULT_CONTEXT_TOKENS = 2048;

/** The context to plan for `config`: the one asked (default DEFAULT_CONTEXT_TOKENS), at most the model's positions. */
export function contextTokensFor(config: Pick<ModelConfig, 'maxPositionEmbeddings'>, asked: number = DEFAULT_CONTEXT_TOKENS): number {
  return Math.min(asked, config.maxPositionEmbeddings);
}
