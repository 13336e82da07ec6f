/**
 * Several episodes' turns decoded together on one engine, for `sqlenv eval --policy qwen`: the shared continuous-
 * batching scheduler (src/policies/llm/batched-generator.ts — queue, free slots, one `engine.sample` per step for
 * every live sequence, KV reuse across turns) on the engine as it was built (one adapter or none, never switched).
 * Episodes play on as separate `LlmPolicy` turns, so prompts, parsing and the tool protocol are the page's own.
 */
import type { QwenEngine } from '../gpu/engine/qwen-engine.ts';
import { PROMPT_PIECE_TOKENS } from '../gpu/engine/qwen-engine.ts';
import type { Tokenizer } from '../model/tokenizer.ts';
import { BatchedGenerator } from '../policies/llm/batched-generator.ts';

export type { BatchStats } from '../policies/llm/batched-generator.ts';

export class BatchDecoder extends BatchedGenerator {
  constructor(engine: QwenEngine, tokenizer: Tokenizer) {
    super({
      engine: () => engine,
      endTokens: [tokenizer.special.imEnd, tokenizer.special.endOfText],
      decode: (ids) => tokenizer.decode(ids),
      prefillChunk: PROMPT_PIECE_TOKENS,
    });
  }
}
