/**
 * "What the adapter changed" (src/eval/explain.ts + src/train/score-tokens.ts) on the toy task and the float64
 * reference model: an episode is played by the page's LlmPolicy on base + a non-zero adapter, then explained.
 * Checked against things computed here, not by the code under test:
 * - the prompts and replies rebuilt from the record are the ids the policy really sent and sampled;
 * - every token's base and adapter log-prob equals a log-softmax computed in this test from the reference's own
 *   float64 forward (`modelForward`), with the adapter and without;
 * - at temperature 1 and top-p 1 the adapter's log-prob of each sampled token equals the sampler's own log-prob;
 * - sums per action and per episode are the sums of the tokens; micro-batching does not change any score;
 * - a one-turn training rollout explained gives the trainer's own sums (`forward` over the rollout's sequence).
 * Seeds are drawn per run and printed.
 */
import { describe, expect, it } from 'vitest';
import { formatAction } from '../../src/env/actions.ts';
import { SqlEnv } from '../../src/env/env.ts';
import { DEFAULT_REWARD_WEIGHTS } from '../../src/env/rewards.ts';
import { runEpisode } from '../../src/eval/episode.ts';
import { explainTurns, explanationOf, ExplainError, firstObservation, formatExplanation, turnSequences, type ExplainPromptSettings } from '../../src/eval/explain.ts';
import type { EpisodeRecord } from '../../src/eval/transcript.ts';
import { emptyCache, modelForward, toReferenceLora, toReferenceWeights } from '../../src/model/reference/model.ts';
import { LlmPolicy, type LlmDecision } from '../../src/policies/llm/llm-policy.ts';
import { buildOracleShots, selectShotQuestions } from '../../src/policies/llm/prompt.ts';
import { OraclePolicy } from '../../src/policies/oracle.ts';
import type { Policy, PolicyContext } from '../../src/policies/policy.ts';
import type { ReferenceTrainableModel } from '../../src/train/reference-model.ts';
import { rollout } from '../../src/train/rollout.ts';
import { scoreBaseAndAdapter } from '../../src/train/score-tokens.ts';
import { useToyTask } from '../train/toy-fixture.ts';
import { testSeed } from '../fixtures/seed.ts';

const f = useToyTask();
const SEED = testSeed('tests/eval/explain.test.ts');

/** The policy's decisions, kept as they were made. */
class Recording implements Policy {
  readonly decisions: LlmDecision[] = [];
  constructor(private readonly inner: LlmPolicy) {}
  get name(): string {
    return this.inner.name;
  }
  async act(context: PolicyContext): Promise<LlmDecision> {
    const d = await this.inner.act(context);
    this.decisions.push(d);
    return d;
  }
}

/** log p(ids[t] | ids[..t]) for every t ≥ from, by the reference's float64 forward and a log-softmax written here. */
async function independentLogProbs(model: ReferenceTrainableModel, ids: readonly number[], from: number, adapterOn: boolean): Promise<number[]> {
  const { config } = f;
  const V = config.vocabSize;
  const lora = adapterOn ? toReferenceLora(await model.readAdapter()) : null;
  const { logits } = modelForward(config, toReferenceWeights(config, f.weights), lora, emptyCache(config), ids);
  const out: number[] = [];
  for (let t = from; t < ids.length; t++) {
    const row = logits.subarray((t - 1) * V, t * V);
    const max = Math.max(...row);
    const lse = max + Math.log(row.reduce((a, x) => a + Math.exp(x - max), 0));
    out.push(row[ids[t]] - lse);
  }
  return out;
}

async function playedEpisode(model: ReferenceTrainableModel, settings: ExplainPromptSettings, seed: number) {
  const policy = new Recording(
    new LlmPolicy({
      tokenizer: f.tokenizer,
      shots: settings.shots,
      thinking: settings.thinking,
      contextTokens: settings.contextTokens,
      maxNewTokens: settings.maxNewTokens,
      temperature: 1,
      topP: 1,
      generate: async (promptTokenIds, o) => (await model.generate([{ promptTokenIds, maxNewTokens: o.maxNewTokens, temperature: o.temperature, topP: o.topP, seed: o.seed }]))[0],
    }),
  );
  const env = new SqlEnv(f.dataset, f.executor);
  const question = f.dataset.questions.filter((q) => q.split === 'train')[seed % 3];
  const record = await runEpisode(env, policy, { questionId: question.id, seed });
  env.close();
  return { record, decisions: policy.decisions };
}

describe('explain an episode against the float64 reference', () => {
  it('rebuilds the prompts and replies the policy used and scores them as the reference does', async () => {
    const shotEnv = new SqlEnv(f.dataset, f.executor);
    const shots = await buildOracleShots(shotEnv, selectShotQuestions(f.dataset, 1, SEED));
    shotEnv.close();
    const settings: ExplainPromptSettings = { shots, thinking: false, contextTokens: 256, maxNewTokens: 3 };
    /** Whether each reply's text encodes back to the ids sampled (a phrase tokenizer may merge two sampled phrases). */
    const roundTripsOf = (decisions: readonly LlmDecision[]) =>
      decisions.map((d) => {
        const last = d.tokenIds.at(-1);
        const shown = last === f.tokenizer.special.imEnd || last === f.tokenizer.special.endOfText ? d.tokenIds.slice(0, -1) : d.tokenIds;
        return JSON.stringify(f.tokenizer.encode(f.tokenizer.decode(shown))) === JSON.stringify(shown) && last !== f.tokenizer.special.endOfText;
      });
    // An episode with at least one reply that round-trips, so the id checks below are not vacuous (a few seeds at most).
    let attempt = 0;
    let model: ReferenceTrainableModel;
    let played: Awaited<ReturnType<typeof playedEpisode>>;
    let roundTrips: boolean[];
    do {
      const seed = SEED + 7919 * attempt++;
      model = f.model({ bInit: (rng) => 0.3 * (rng.next() * 2 - 1), seed });
      played = await playedEpisode(model, settings, seed);
      roundTrips = roundTripsOf(played.decisions);
    } while (!roundTrips.some(Boolean) && attempt < 8);
    expect(roundTrips.some(Boolean)).toBe(true);
    const { record, decisions } = played;
    expect(decisions.length).toBeGreaterThan(0);

    const first = await firstObservation(new SqlEnv(f.dataset, f.executor), record);
    const turns = explainTurns(record, first, f.tokenizer, settings);
    expect(turns.map((t) => t.promptTokenIds)).toEqual(decisions.map((d) => d.promptTokenIds));
    // Replies re-encoded from their text: equal to the sampled ids wherever the text encodes back to them.
    turns.forEach((t, i) => {
      if (roundTrips[i]) expect(t.replyTokenIds, `turn ${i}`).toEqual(decisions[i].tokenIds);
    });

    const sequences = turnSequences(turns);
    const scores = await scoreBaseAndAdapter(model, sequences);
    const explanation = explanationOf(record, turns, scores, f.tokenizer);
    let total = 0;
    for (const [i, t] of turns.entries()) {
      const ids = [...t.promptTokenIds, ...t.replyTokenIds];
      const base = await independentLogProbs(model, ids, t.promptTokenIds.length, false);
      const adapter = await independentLogProbs(model, ids, t.promptTokenIds.length, true);
      const a = explanation.actions[i];
      expect(a.tokens.map((x) => x.id)).toEqual(t.replyTokenIds);
      a.tokens.forEach((tok, k) => {
        expect(tok.base).toBeCloseTo(base[k], 5);
        expect(tok.adapter).toBeCloseTo(adapter[k], 5);
        expect(tok.delta).toBeCloseTo(adapter[k] - base[k], 5);
      });
      // The adapter changes the model, so the two columns are not the same numbers.
      expect(a.tokens.some((tok) => Math.abs(tok.delta) > 1e-4)).toBe(true);
      const baseSum = base.reduce((x, y) => x + y, 0);
      const adapterSum = adapter.reduce((x, y) => x + y, 0);
      expect(a.base).toBeCloseTo(baseSum, 4);
      expect(a.adapter).toBeCloseTo(adapterSum, 4);
      expect(a.delta).toBeCloseTo(adapterSum - baseSum, 4);
      total += adapterSum - baseSum;
      // Sampled at T = 1, top-p 1 with the adapter on: the sampler's log-probs are the adapter column.
      if (roundTrips[i]) decisions[i].logProbs!.forEach((lp, k) => expect(a.tokens[k].adapter).toBeCloseTo(lp, 5));
    }
    expect(explanation.delta).toBeCloseTo(total, 4);
    expect(explanation.tokens).toBe(turns.reduce((n, t) => n + t.replyTokenIds.length, 0));
    const table = formatExplanation(explanation);
    expect(table).toContain(`${explanation.tokens} reply tokens`);
    expect(table.split('\n').filter((l) => /^\s+\d+\s+\d+\s/.test(l))).toHaveLength(turns.length);
  });

  it('gives the same scores whatever the micro-batches', async () => {
    const model = f.model({ bInit: (rng) => 0.3 * (rng.next() * 2 - 1), seed: SEED + 1 });
    const settings: ExplainPromptSettings = { shots: [], thinking: false, contextTokens: 256, maxNewTokens: 3 };
    const { record } = await playedEpisode(model, settings, SEED + 1);
    const turns = explainTurns(record, await firstObservation(new SqlEnv(f.dataset, f.executor), record), f.tokenizer, settings);
    const sequences = turnSequences(turns);
    const whole = await scoreBaseAndAdapter(model, sequences);
    const progress: number[] = [];
    const longest = Math.max(...sequences.map((s) => s.tokenIds.length));
    const oneByOne = await scoreBaseAndAdapter({ forward: (b, o) => model.forward(b, o), microBatchLimits: { maxTokens: longest, maxSequences: 1, maxSequenceTokens: longest } }, sequences, { onProgress: (d) => progress.push(d) });
    expect(oneByOne).toEqual(whole);
    expect(progress).toEqual(sequences.map((_, i) => i + 1));
  });

  it('sums a first turn to what the trainer scores for the same rollout, base and adapter', async () => {
    const settings = { maxTurns: 1, maxNewTokensPerTurn: 3, maxEpisodeTokens: 256, temperature: 1, topP: 1, thinking: false, rewardWeights: DEFAULT_REWARD_WEIGHTS, shots: [] };
    const explainSettings: ExplainPromptSettings = { shots: [], thinking: false, contextTokens: 256, maxNewTokens: 3 };
    const sum = (xs: ArrayLike<number>) => Array.from(xs).reduce((a, x) => a + x, 0);
    // A rollout whose reply text encodes back to its sampled ids (most do; a few seeds at most).
    for (let attempt = 0; attempt < 8; attempt++) {
      const seed = SEED + 2 + 7919 * attempt;
      const model = f.model({ bInit: (rng) => 0.3 * (rng.next() * 2 - 1), seed });
      const question = f.dataset.questions.filter((q) => q.split === 'train')[seed % 3];
      const [ep] = await rollout(model, () => new SqlEnv(f.dataset, f.executor), [{ question, seed: seed % 1000 }], settings);
      const record: EpisodeRecord = {
        policy: 'qwen',
        dataset: f.dataset.name,
        questionId: ep.questionId,
        dbId: ep.dbId,
        question: ep.question,
        difficulty: question.difficulty,
        split: question.split,
        seed: ep.seed,
        success: ep.correct,
        episodeReturn: ep.reward,
        components: ep.components,
        steps: ep.turns.length,
        terminated: true,
        truncated: false,
        transcript: ep.turns.map((t) => ({ action: t.action, actionText: formatAction(t.action), observation: t.observation, reward: t.reward, components: t.components, outcome: t.outcome, episodeReturn: t.reward, rawText: t.rawText, generation: { newTokens: t.replyTokens, seconds: 0, tokensPerSecond: 0, cutByLimit: t.cutByLimit } })),
      };
      const turns = explainTurns(record, await firstObservation(new SqlEnv(f.dataset, f.executor), record), f.tokenizer, explainSettings);
      const reply = ep.tokenIds.filter((_, t) => ep.lossMask[t] === 1);
      if (JSON.stringify(turns[0].replyTokenIds) !== JSON.stringify(reply)) continue;
      // The trainer's log-probs of this episode: its one sequence, scored by the same forward, summed.
      const trainerAdapter = sum(await model.forward([{ tokenIds: ep.tokenIds, lossMask: ep.lossMask }]));
      const trainerBase = sum(await model.forward([{ tokenIds: ep.tokenIds, lossMask: ep.lossMask }], { adapter: false }));
      const explanation = explanationOf(record, turns, await scoreBaseAndAdapter(model, turnSequences(turns)), f.tokenizer);
      expect([...turns[0].promptTokenIds, ...turns[0].replyTokenIds]).toEqual(ep.tokenIds);
      expect(explanation.adapter).toBeCloseTo(trainerAdapter, 5);
      expect(explanation.base).toBeCloseTo(trainerBase, 5);
      expect(Math.abs(explanation.delta)).toBeGreaterThan(1e-4);
      return;
    }
    expect.unreachable('no rollout of 8 re-encoded to its sampled ids');
  });

  it('refuses an episode with no model replies, naming the policy', async () => {
    const env = new SqlEnv(f.dataset, f.executor);
    const record: EpisodeRecord = await runEpisode(env, new OraclePolicy(), { questionId: f.dataset.questions[0].id, seed: 1 });
    env.close();
    const settings: ExplainPromptSettings = { shots: [], thinking: false, contextTokens: 256, maxNewTokens: 3 };
    expect(() => explainTurns(record, 'first', f.tokenizer, settings)).toThrow(ExplainError);
    expect(() => explainTurns(record, 'first', f.tokenizer, settings)).toThrow(/oracle/);
  });
});
