/**
 * A fake decoding engine for the batched generator's and the prefix cache's tests: it keeps each slot's cache as
 * the list of (token, weights version) pairs written at each position and draws each next token from a hash of the
 * WHOLE cache it reads, the weights version each position was computed with, the sampling settings and the key. So
 * a stale cache (another sequence's tokens, or positions computed under older weights) gives other tokens than a
 * full re-prefill, exactly as a real engine would; and every call is recorded (the ids fed per slot).
 */
import type { SampleInput, SubmitOptions } from '../../../src/gpu/engine/qwen-engine.ts';
import type { Sampled, SamplingParams } from '../../../src/gpu/kernels/sample.ts';
import type { DecodeEngine } from '../../../src/policies/llm/batched-generator.ts';

export interface FakeCall {
  inputs: Array<{ slot: number; ids: number[] }>;
  sampling: SamplingParams;
}

/** FNV-1a over 32-bit words. */
function hashWords(words: readonly number[]): number {
  let h = 0x811c9dc5;
  for (const w of words) {
    for (let b = 0; b < 4; b++) {
      h ^= (w >>> (8 * b)) & 0xff;
      h = Math.imul(h, 0x01000193) >>> 0;
    }
  }
  return h >>> 0;
}

export class FakeDecodeEngine implements DecodeEngine {
  readonly plan: { options: { batch: number; context: number } };
  readonly calls: FakeCall[] = [];
  /** Every `copyPrefix`, in order. */
  readonly copies: Array<{ from: number; to: number; length: number }> = [];
  /** What the "weights" are: bumped to model an adapter change or new weights. */
  weightsVersion = 0;
  private readonly cache: Array<Array<{ id: number; version: number }>>;
  private readonly lengths: number[];
  private readonly writes: number[];

  constructor(
    batch: number,
    context: number,
    readonly vocab = 50,
  ) {
    this.plan = { options: { batch, context } };
    this.cache = Array.from({ length: batch }, () => []);
    this.lengths = new Array<number>(batch).fill(0);
    this.writes = new Array<number>(batch).fill(0);
  }

  length(slot: number): number {
    return this.lengths[slot];
  }

  writeCount(slot: number): number {
    return this.writes[slot];
  }

  reset(slot: number): void {
    this.lengths[slot] = 0;
    this.writes[slot]++;
  }

  rewind(slot: number, length: number): void {
    if (length < 0 || length > this.lengths[slot]) throw new RangeError(`fake rewind: ${length} outside 0..${this.lengths[slot]}`);
    this.lengths[slot] = length;
    this.writes[slot]++;
  }

  /** Copies the cached positions themselves (with the weights each was computed with), as the GPU copy does. */
  copyPrefix(from: number, to: number, length: number): void {
    if (from === to || length < 1 || length > this.lengths[from]) throw new RangeError(`fake copyPrefix: ${length} of slot ${from} into ${to}`);
    this.copies.push({ from, to, length });
    this.cache[to] = this.cache[from].slice(0, length).map((p) => ({ ...p }));
    this.lengths[to] = length;
    this.writes[to]++;
  }

  /** Sum of the ids fed to the engine over every call. */
  get fedTokens(): number {
    return this.calls.reduce((a, c) => a + c.inputs.reduce((b, i) => b + i.ids.length, 0), 0);
  }

  async sample(inputs: readonly SampleInput[], sampling: SamplingParams, _submits?: SubmitOptions): Promise<Sampled> {
    await Promise.resolve();
    this.calls.push({ inputs: inputs.map((i) => ({ slot: i.slot, ids: [...i.ids] })), sampling: { ...sampling } });
    const M = inputs.length;
    const out: Sampled = { tokens: new Uint32Array(M), logprobs: new Float32Array(M), uniforms: new Float32Array(M), kept: new Uint32Array(M) };
    const seen = new Set<number>();
    inputs.forEach((input, i) => {
      if (seen.has(input.slot)) throw new RangeError(`fake sample: slot ${input.slot} twice`);
      seen.add(input.slot);
      const slot = this.cache[input.slot];
      const start = this.lengths[input.slot];
      if (start + input.ids.length > this.plan.options.context) throw new RangeError('fake sample: past the context');
      slot.length = start;
      for (const id of input.ids) slot.push({ id, version: this.weightsVersion });
      this.lengths[input.slot] = slot.length;
      this.writes[input.slot]++;
      const words = slot.flatMap((p) => [p.id, p.version]);
      const h = hashWords([...words, Math.round(sampling.temperature * 1000), Math.round((sampling.topP ?? 1) * 1000), input.key.seed, input.key.sequence, input.key.step]);
      out.tokens[i] = h % this.vocab;
      out.logprobs[i] = -((h >>> 8) % 100) / 10;
    });
    return out;
  }
}
