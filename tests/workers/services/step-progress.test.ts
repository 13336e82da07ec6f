/**
 * A policy's step as it runs crosses to the page: `LlmPolicy` reports the prompt, then each count of new tokens its
 * engine streams; Watch's `policyStep` and an evaluation pass them on with the step and the budget, and an evaluation
 * also reports its start (0 done) and each episode's end, and is cancelled within an episode. Token counts are throttled (at most one per
 * `PROGRESS_INTERVAL_MS`), so the scripted engine here moves a fake clock (Date only) a little more than that between
 * tokens: no real time passes, so a slow machine cannot change what is heard.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Dataset } from '../../../src/data/types.ts';
import { LlmPolicy, type Generate } from '../../../src/policies/llm/llm-policy.ts';
import type { PolicyContext, TurnProgress } from '../../../src/policies/policy.ts';
import { PolicyRegistry } from '../../../src/policies/registry.ts';
import { createToyTokenizer } from '../../../src/train/toy-task.ts';
import type { StepProgress } from '../../../src/workers/env-protocol.ts';
import { EpisodeService } from '../../../src/workers/services/episode-service.ts';
import { EvaluationService } from '../../../src/workers/services/evaluation-service.ts';
import { PROGRESS_INTERVAL_MS } from '../../../src/workers/services/progress.ts';
import { countingExecutors, tinyLookup, type CountingExecutors } from './service-fixture.ts';
import { CancelledError } from '../../../src/util/cancelled.ts';

let lookup: (name: string) => Promise<Dataset>;
let executors: CountingExecutors;
beforeAll(async () => {
  ({ lookup } = await tinyLookup());
  executors = await countingExecutors();
});

const tokenizer = createToyTokenizer();
const TOKENS = 3;
const MAX_NEW_TOKENS = 8;

// Only Date is faked (the throttle's clock): timers and the SQL workers' time limits keep real time.
beforeEach(() => void vi.useFakeTimers({ toFake: ['Date'] }));
afterEach(() => void vi.useRealTimers());

/** An engine that streams `TOKENS` tokens, a throttle interval and a bit apart (on the fake clock), then ends without a tool call. */
const streaming: Generate = async (_prompt, options) => {
  const ids: number[] = [];
  for (let i = 1; i <= TOKENS; i++) {
    await Promise.resolve(); // a token is asynchronous, as an engine's is
    vi.setSystemTime(Date.now() + PROGRESS_INTERVAL_MS + 20);
    ids.push(tokenizer.special.imEnd === 0 ? 1 : 0);
    options.onToken?.(i);
  }
  return { tokenIds: [...ids, tokenizer.special.imEnd], text: 'no tool call here' };
};

function registry(): PolicyRegistry {
  const policies = new PolicyRegistry();
  policies.register({ name: 'stream', label: 'Streaming model', description: 'A scripted model.' }, () => new LlmPolicy({ generate: streaming, tokenizer, maxNewTokens: MAX_NEW_TOKENS, contextTokens: 4096, name: 'stream' }));
  return policies;
}

describe('LlmPolicy progress', () => {
  it('reports the prompt with 0 new tokens, then each count the engine streams', async () => {
    const dataset = await lookup('tiny');
    const heard: TurnProgress[] = [];
    const policy = new LlmPolicy({ generate: streaming, tokenizer, maxNewTokens: MAX_NEW_TOKENS, contextTokens: 4096 });
    const first = { text: dataset.questions[0].question, stepsLeft: 10 } as PolicyContext['first'];
    const decision = await policy.act({ first, history: [], observation: first, question: dataset.questions[0], rng: { next: () => 0.5 }, onProgress: (p) => heard.push(p) });
    expect(heard.map((p) => p.newTokens)).toEqual([0, 1, 2, 3]);
    expect(heard.every((p) => p.maxNewTokens === MAX_NEW_TOKENS && p.promptTokens === decision.stats.promptTokens)).toBe(true);
  });
});

describe('Step progress through the services', () => {
  it("Watch's policyStep passes on the step, the budget and the tokens so far", async () => {
    const episodes = new EpisodeService({ dataset: lookup, policies: registry(), createExecutor: executors.create });
    await episodes.reset('w', 'tiny', { questionId: 'tiny-1', seed: 1 }, 'stream');
    await episodes.policyStep('w');
    const heard: StepProgress[] = [];
    await episodes.policyStep('w', (p) => heard.push(p));
    expect(heard[0]).toEqual({ step: 2, budget: 10, turn: null });
    expect(heard.map((p) => p.turn?.newTokens ?? null)).toEqual([null, 0, 1, 2, 3]);
    expect(heard.every((p) => p.step === 2 && p.budget === 10)).toBe(true);
    await episodes.close();
  });

  it('an evaluation reports its start, each model turn and its tokens, and each episode end', async () => {
    const evaluation = new EvaluationService({ dataset: lookup, policies: registry(), createExecutor: executors.create, envConfig: { budget: 2 } });
    const heard: string[] = [];
    await evaluation.evaluate({ runId: 'r', dataset: 'tiny', policy: 'stream', split: 'all', episodes: 2, seed: 0 }, (done, total, current) => {
      heard.push(`${done}/${total} ${current ? `step ${current.step}/${current.budget} ${current.turn?.newTokens ?? '-'}` : 'between'}`);
    });
    // A step's start ('-') may be dropped by the throttle when it follows another report closely; the rest may not.
    const episode = (done: number) => [1, 2].flatMap((step) => [`${done}/2 step ${step}/2 0`, `${done}/2 step ${step}/2 1`, `${done}/2 step ${step}/2 2`, `${done}/2 step ${step}/2 3`]);
    expect(heard.filter((h) => !h.endsWith('-'))).toEqual(['0/2 between', ...episode(0), '1/2 between', ...episode(1), '2/2 between']);
  });

  it('Cancel takes effect within the episode in play, at its next token or step', async () => {
    const evaluation = new EvaluationService({ dataset: lookup, policies: registry(), createExecutor: executors.create });
    const heard: string[] = [];
    const run = evaluation.evaluate({ runId: 'c', dataset: 'tiny', policy: 'stream', split: 'all', episodes: 3, seed: 0 }, (done, _total, current) => {
      heard.push(`${done} ${current ? `${current.step}:${current.turn?.newTokens ?? '-'}` : 'between'}`);
      if (current?.turn?.newTokens === 1) evaluation.cancelEvaluation('c');
    });
    await expect(run).rejects.toBeInstanceOf(CancelledError);
    expect(heard.filter((h) => !h.endsWith('-'))).toEqual(['0 between', '0 1:0', '0 1:1']);
  });
});
