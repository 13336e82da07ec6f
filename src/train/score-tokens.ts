/**
 * Teacher-forced scores of given token sequences under the base model and under base + adapter: forward passes only,
 * packed into micro-batches exactly as the trainer packs its own (microbatch.ts), and scored by the SAME
 * `TrainableModel.forward` the trainer calls for its policy and KL-reference log-probs (trainer.ts: `forward(mb,
 * { adapter: false })`, then `forward(mb)`). So a sum of these scores over a reply is the sum the trainer uses for
 * that reply, on the WebGPU trainer (gpu-model.ts) and on the float64 reference (reference-model.ts) alike.
 *
 * Temperature: scores are log p at temperature 1 (the `forward` default, policy-model.ts's scoring convention), of
 * the tokens as given — the model's own sampled tokens when a transcript is explained — never rescaled by the
 * temperature a run sampled at.
 *
 * Shapes: per sequence, one score per masked-in token t (t ≥ 1), positions ascending: `base[k]`, `adapter[k]` are
 * log p(tokenIds[t] | tokenIds[0..t−1]) of the k-th scored token.
 */
import { effectiveLimits, packMicroBatches } from './microbatch.ts';
import type { ScoredSequence, TrainableModel } from './policy-model.ts';

/** The scores of one sequence's scored tokens, in position order. */
export interface BaseAndAdapterScores {
  base: Float32Array;
  adapter: Float32Array;
}

export interface ScoreOptions {
  /** Hears after every micro-batch: sequences scored so far, of all. */
  onProgress?(done: number, total: number): void;
  /** Checked before every forward: an abort rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** What scoring needs of a model: its forward and its micro-batch limits. */
export type ScoringModel = Pick<TrainableModel, 'forward' | 'microBatchLimits'>;

function scoredCountOf(seq: ScoredSequence): number {
  let n = 0;
  for (let t = 1; t < seq.tokenIds.length; t++) if (seq.lossMask[t]) n++;
  return n;
}

/**
 * Every sequence scored with the adapter off and on, in the given order. The model must hold the adapter to explain
 * (`loadAdapter`); `forward(…, { adapter: false })` is the base model with that adapter's LoRA switched off.
 */
export async function scoreBaseAndAdapter(model: ScoringModel, sequences: readonly ScoredSequence[], options: ScoreOptions = {}): Promise<BaseAndAdapterScores[]> {
  sequences.forEach((s, i) => {
    if (s.lossMask.length !== s.tokenIds.length) throw new RangeError(`scoreBaseAndAdapter: sequence ${i} has ${s.tokenIds.length} tokens but a mask of ${s.lossMask.length}`);
    if (s.lossMask[0]) throw new RangeError(`scoreBaseAndAdapter: sequence ${i} scores position 0, which has no context`);
  });
  const batches = packMicroBatches(sequences, effectiveLimits(model.microBatchLimits, 0));
  const out: BaseAndAdapterScores[] = [];
  for (const mb of batches) {
    options.signal?.throwIfAborted();
    const base = await model.forward(mb, { adapter: false });
    options.signal?.throwIfAborted();
    const adapter = await model.forward(mb, { adapter: true });
    let k = 0;
    for (const seq of mb) {
      const n = scoredCountOf(seq);
      out.push({ base: base.slice(k, k + n), adapter: adapter.slice(k, k + n) });
      k += n;
    }
    if (k !== base.length || k !== adapter.length) throw new RangeError(`scoreBaseAndAdapter: the model returned ${base.length} / ${adapter.length} scores for ${k} scored tokens`);
    options.onProgress?.(out.length, sequences.length);
  }
  return out;
}
