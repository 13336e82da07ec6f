/**
 * An episode as ONE token sequence, built turn by turn the way it was sampled ("tokens in, tokens out"):
 *
 *   [prompt: system + shots + user, generation prompt]  mask 0   (buildPrompt, exactly as LlmPolicy renders turn 1)
 *   [reply 1: the model's own tokens, end token included] mask 1
 *   [tool turn 1: `<|im_end|>` if the reply lacked it, the observation as a tool message, the next generation prompt]
 *                                                         mask 0
 *   [reply 2] mask 1 …
 *
 * Replies are kept as the sampled token ids (never re-tokenized or re-rendered), so the context each reply was
 * sampled from is exactly a prefix of the sequence, and the log-probs the trainer recomputes are those of the
 * sampled tokens. The text between replies comes from the checkpoint's own chat template: a sentinel assistant
 * message is rendered followed by the tool message and the generation prompt, and what follows the sentinel is the
 * tool turn (`<|im_end|>\n<|im_start|>user\n<tool_response>\n…\n</tool_response><|im_end|>\n<|im_start|>assistant\n`
 * for Qwen, plus the empty think block when thinking is off). The same template gives a demonstration's reply text
 * (SFT): what the template renders for an assistant tool call after the generation prompt.
 *
 * The text pieces come from src/policies/llm/turn-text.ts, which LlmPolicy's prompts use too, so a model policy
 * sees at turn k the text a training sequence holds there. One difference remains: past replies appear here
 * verbatim (thinking and stray text included), while a policy re-renders each past action as its canonical call
 * (the environment's history keeps actions, not raw replies); for a reply that is a canonical call they agree.
 */
import type { ToolCall } from '../model/tokenizer.ts';
import { assistantTurnEdges, replyTextForCall, toolTurnText, type ChatFormat } from '../policies/llm/turn-text.ts';

export { assistantTurnEdges, replyTextForCall, toolTurnText, type ChatFormat } from '../policies/llm/turn-text.ts';

/** Token ids of the tool turn after a reply; the leading `<|im_end|>` is left out when the reply already ended with it. */
export function toolTurnTokens(format: ChatFormat, observation: string, replyEnded: boolean): number[] {
  const { imEnd } = format.tokenizer.special;
  const ids = format.tokenizer.encode(toolTurnText(format, observation));
  if (ids[0] !== imEnd) throw new Error('chat template: the tool turn does not start with <|im_end|>');
  return replyEnded ? ids.slice(1) : ids;
}

/** Token ids of a demonstration reply, end token included (all of them the model's own: loss mask 1). */
export function replyTokensForCall(format: ChatFormat, call: ToolCall): number[] {
  return [...format.tokenizer.encode(replyTextForCall(format, call)), format.tokenizer.special.imEnd];
}

/** A growing token sequence with its loss mask and the sampled log-prob of each masked-in token. */
export class SequenceBuilder {
  readonly tokenIds: number[] = [];
  readonly mask: number[] = [];
  readonly sampledLogProbs: number[] = [];

  get length(): number {
    return this.tokenIds.length;
  }

  /** Environment / prompt tokens (mask 0). */
  pushContext(ids: readonly number[]): void {
    for (const id of ids) {
      this.tokenIds.push(id);
      this.mask.push(0);
    }
  }

  /** The model's tokens (mask 1), with their sampled log-probs when known (NaN otherwise). */
  pushReply(ids: readonly number[], logProbs?: readonly number[]): void {
    if (this.tokenIds.length === 0 && ids.length > 0) throw new RangeError('SequenceBuilder: a reply needs a prompt before it');
    ids.forEach((id, i) => {
      this.tokenIds.push(id);
      this.mask.push(1);
      this.sampledLogProbs.push(logProbs?.[i] ?? NaN);
    });
  }

  lossMask(): Uint8Array {
    return Uint8Array.from(this.mask);
  }
}

/**
 * A demonstration (SFT) as one sequence whose loss mask is what TRL's SFTTrainer trains with
 * `assistant_only_loss=True` (its Qwen3 training template marks each assistant turn from after
 * `<|im_start|>assistant\n` through `<|im_end|>\n` as `{% generation %}`): the body's opening the generation prompt
 * holds (Qwen3, thinking off: the empty think block), the call, `<|im_end|>`, and the newline after it — also after
 * the last reply, which TRL's rendering ends with. The SFT export (src/eval/trl-export.ts) builds its rows' tokens with
 * this class too, so the page's SFT and TRL's train the same tokens. (With thinking off, the opening is in the
 * prompt at generation time, so training it changes nothing the model is asked to produce.)
 */
export class DemonstrationBuilder {
  readonly seq = new SequenceBuilder();
  private readonly bodyStart: number[];
  private readonly turnEnd: number[];

  constructor(format: ChatFormat) {
    const edges = assistantTurnEdges(format);
    this.bodyStart = edges.bodyStart === '' ? [] : format.tokenizer.encode(edges.bodyStart);
    this.turnEnd = edges.turnEnd === '' ? [] : format.tokenizer.encode(edges.turnEnd);
  }

  /** The first prompt (generation prompt included): context, but for the assistant body's opening at its end. */
  prompt(ids: readonly number[]): void {
    this.pushWithOpening(ids);
  }

  /** A reply's tokens, end token included. */
  reply(ids: readonly number[]): void {
    this.seq.pushReply(ids);
  }

  /** The tool turn after a reply that ended with `<|im_end|>` (`toolTurnTokens(…, true)`): the turn's end is trained. */
  toolTurn(ids: readonly number[]): void {
    const n = this.turnEnd.length;
    if (!sameIds(ids.slice(0, n), this.turnEnd)) throw new Error('chat template: the tool turn does not start with the end of the assistant turn');
    this.seq.pushReply(ids.slice(0, n));
    this.pushWithOpening(ids.slice(n));
  }

  /** Ends the sequence after the last reply with the turn's end, as TRL's rendering does. */
  finish(): void {
    this.seq.pushReply(this.turnEnd);
  }

  private pushWithOpening(ids: readonly number[]): void {
    const k = this.bodyStart.length;
    if (!sameIds(ids.slice(ids.length - k), this.bodyStart)) throw new Error('chat template: the context does not end with the generation prompt');
    this.seq.pushContext(ids.slice(0, ids.length - k));
    this.seq.pushReply(ids.slice(ids.length - k));
  }
}

function sameIds(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

