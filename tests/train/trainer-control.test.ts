/**
 * What a run shows and how it stops (src/train/trainer.ts with progress.ts), on the toy task and the CPU reference:
 * progress reports of every activity (baseline evaluation, rollouts, update, checkpoint) in order, each starting at
 * 0 and ending at its total; Stop during the baseline evaluation ends the run within one decode step (no token is
 * generated after it); Pause during a rollout stops generation at once, says so, and Resume gives exactly the
 * uninterrupted run; Stop during an update ends it before the optimizer step. Inside an update every forward and
 * backward pass is reported as it starts (never throttled away), a Pause takes hold between two passes (not at the
 * update's end), says so, and Resume goes on from there to exactly the uninterrupted run, redoing nothing; a Stop
 * during the final evaluation reads as stopped, not finished.
 */
import { describe, expect, it } from 'vitest';
import type { GenerateOptions, GenerateRequest } from '../../src/train/policy-model.ts';
import { Trainer, type PausePoint, type TrainerCallbacks, type TrainerState } from '../../src/train/trainer.ts';
import type { StepMetrics, TrainConfig, TrainProgress } from '../../src/train/types.ts';
import { SMALL_GRPO, useToyTask } from './toy-fixture.ts';

const f = useToyTask();

const SMALL: Partial<TrainConfig> = { ...SMALL_GRPO, steps: 2 };

const stable = (m: StepMetrics) => ({ ...m, seconds: null, tokensPerSecond: null, etaSeconds: null });

/** A toy model whose decode steps are counted; `mark()` starts a second count (tokens generated after it). */
function observedModel() {
  const model = f.model();
  const counts = { tokens: 0, afterMark: 0, marked: false, aborted: 0 };
  const generate = model.generate.bind(model);
  model.generate = async (requests: readonly GenerateRequest[], options: GenerateOptions = {}) => {
    try {
      return await generate(requests, {
        ...options,
        onTokens: (n) => {
          counts.tokens += n;
          if (counts.marked) counts.afterMark += n;
          options.onTokens?.(n);
        },
      });
    } catch (e) {
      if (options.signal?.aborted) counts.aborted++;
      throw e;
    }
  };
  return { model, counts, mark: () => (counts.marked = true) };
}

function trainer(model: ReturnType<typeof f.model>, config: Partial<TrainConfig>, callbacks: TrainerCallbacks): Trainer {
  return new Trainer({ model, dataset: f.dataset, executor: f.executor, progressIntervalMs: 0 }, config, callbacks);
}

describe('Trainer progress', () => {
  it('reports every activity as it starts and goes: baseline evaluation, rollouts, update, evaluation, checkpoint', async () => {
    const progress: TrainProgress[] = [];
    const { model } = observedModel();
    const t = trainer(model, { ...SMALL, steps: 1, evalEvery: 1, checkpointEvery: 1 }, { onProgress: (p) => progress.push(p), onCheckpoint: () => undefined });
    await t.run();
    const first = progress[0];
    expect(first).toMatchObject({ activity: 'evaluation', step: 0, done: 0, total: 4, text: 'Evaluating before training: 0 of 4 episodes done' });
    const activities = progress.map((p) => `${p.activity}@${p.step}`).filter((a, i, all) => a !== all[i - 1]);
    expect(activities).toEqual(['evaluation@0', 'rollout@1', 'update@1', 'evaluation@1', 'checkpoint@1']);
    const baseline = progress.filter((p) => p.activity === 'evaluation' && p.step === 0);
    expect(baseline.some((p) => /^Evaluating before training: \d of 4 episodes done \(turn [12] of 2, \d+ tokens generated\)$/.test(p.text))).toBe(true);
    for (let i = 1; i < baseline.length; i++) expect(baseline[i].done).toBeGreaterThanOrEqual(baseline[i - 1].done);
    expect(baseline.at(-1)).toMatchObject({ done: 4, total: 4, etaSeconds: 0 });
    expect(baseline.some((p) => p.done > 0 && p.done < 4 && p.etaSeconds !== null && p.etaSeconds > 0)).toBe(true);
    const update = progress.filter((p) => p.activity === 'update');
    if (update.length > 0) expect(update.at(-1)!.text).toMatch(/^Step 1: update, micro-batch (\d+) of \1 done \((\d+) of \2 tokens\)$/);
    expect(progress.filter((p) => p.activity === 'rollout').at(-1)).toMatchObject({ done: 8, total: 8 });
  });
});

describe('Trainer stop and pause', () => {
  it('stops during the baseline evaluation within one decode step', async () => {
    const { model, counts, mark } = observedModel();
    const t: Trainer = trainer(model, { ...SMALL, evalEvery: 1 }, {
      onProgress: (p) => {
        if (p.activity === 'evaluation' && (p.tokens ?? 0) > 0 && !counts.marked) {
          mark();
          t.stop();
        }
      },
    });
    const result = await t.run();
    expect(counts.marked).toBe(true);
    expect(counts.afterMark).toBe(0);
    expect(counts.aborted).toBe(1);
    expect(result).toMatchObject({ stopped: true, lastStep: 0, evals: [], metrics: [] });
    expect(t.state).toBe('stopped');
  });

  it('pauses a rollout at once, says so, and resumes to exactly the uninterrupted run', async () => {
    const plain = await trainer(f.model(), SMALL, {}).run();
    const { model, counts, mark } = observedModel();
    const states: TrainerState[] = [];
    let resumed = false;
    const t: Trainer = trainer(model, SMALL, {
      onProgress: (p) => {
        if (p.activity === 'rollout' && p.step === 2 && (p.tokens ?? 0) > 0 && !counts.marked) {
          mark();
          t.pause();
        }
      },
      onStateChange: (state) => {
        states.push(state);
        if (state === 'paused') {
          expect(counts.afterMark).toBe(0); // nothing generated between the pause and its report
          resumed = true;
          setTimeout(() => t.resume(), 0);
        }
      },
    });
    const result = await t.run();
    expect(resumed).toBe(true);
    expect(states).toEqual(['paused', 'running']);
    expect(result.metrics.map(stable)).toEqual(plain.metrics.map(stable));
  });

  it('stops an update between micro-batches, before the optimizer step', async () => {
    const { model } = observedModel();
    let steps = 0;
    const optimizerStep = model.optimizerStep.bind(model);
    model.optimizerStep = (settings) => {
      steps++;
      return optimizerStep(settings);
    };
    let total = 0;
    const t: Trainer = trainer(model, { ...SMALL, algo: 'sft', sftExamplesPerStep: 4, microBatchTokens: 64 }, {
      onProgress: (p) => {
        if (p.activity === 'update' && p.done === 1) {
          total = p.total;
          t.stop();
        }
      },
    });
    const result = await t.run();
    expect(total).toBeGreaterThan(1); // stopped with micro-batches left
    expect(steps).toBe(0);
    expect(result).toMatchObject({ stopped: true, lastStep: 0, metrics: [] });
  });
});

/** A toy model whose forward and backward calls are counted, each forward with its micro-batch's tokens. */
function passCountingModel() {
  const model = f.model();
  const passes = { forwards: [] as number[], backwards: 0 };
  const forward = model.forward.bind(model);
  const backward = model.backward.bind(model);
  model.forward = (batch, options) => {
    passes.forwards.push(batch.reduce((a, it) => a + it.tokenIds.length, 0));
    return forward(batch, options);
  };
  model.backward = (grad) => {
    passes.backwards++;
    return backward(grad);
  };
  return { model, passes };
}

/** SFT in several micro-batches: one update holds several forward and backward passes. */
const SFT_PASSES: Partial<TrainConfig> = { ...SMALL, algo: 'sft', sftExamplesPerStep: 4, microBatchTokens: 64 };

describe('Trainer inside an update', () => {
  it('reports each forward and backward pass as it starts, with its tokens, however long the report interval', async () => {
    const { model, passes } = passCountingModel();
    const texts: string[] = [];
    // A report interval longer than the run: only the reports that must go out do.
    const t = new Trainer({ model, dataset: f.dataset, executor: f.executor, progressIntervalMs: 1e9 }, { ...SFT_PASSES, steps: 1 }, {
      onProgress: (p) => {
        if (p.activity === 'update' && texts.at(-1) !== p.text) texts.push(p.text);
      },
    });
    await t.run();
    const n = passes.forwards.length;
    expect(n).toBeGreaterThan(1);
    const total = passes.forwards.reduce((a, b) => a + b, 0);
    const expected = [`Step 1: update, micro-batch 0 of ${n} (${total} tokens)`];
    let sum = 0;
    passes.forwards.forEach((tokens, i) => {
      sum += tokens;
      expected.push(
        `Step 1: update, micro-batch ${i + 1} of ${n}: forward pass (${tokens} tokens)`,
        `Step 1: update, micro-batch ${i + 1} of ${n}: backward pass (${tokens} tokens)`,
        `Step 1: update, micro-batch ${i + 1} of ${n} done (${sum} of ${total} tokens)`,
      );
    });
    expect(texts).toEqual(expected);
  });

  it('pauses between two passes of an update, says where, and resumes from there to exactly the uninterrupted run', async () => {
    const plainModel = passCountingModel();
    const plain = await trainer(plainModel.model, SFT_PASSES, {}).run();
    const { model, passes } = passCountingModel();
    const paused: Array<{ at: PausePoint | undefined; forwards: number; backwards: number }> = [];
    const states: TrainerState[] = [];
    let asked = false;
    const t: Trainer = trainer(model, SFT_PASSES, {
      onProgress: (p) => {
        // Pause while step 2's first forward pass runs: it takes hold before that micro-batch's backward.
        if (!asked && p.activity === 'update' && p.step === 2 && /micro-batch 1 of \d+: forward pass/.test(p.text)) {
          asked = true;
          t.pause();
        }
      },
      onStateChange: (state, at) => {
        states.push(state);
        if (state === 'paused') {
          paused.push({ at, forwards: passes.forwards.length, backwards: passes.backwards });
          setTimeout(() => t.resume(), 0);
        }
      },
    });
    const result = await t.run();
    const perStep = plainModel.passes.forwards.length / 2;
    expect(states).toEqual(['paused', 'running']);
    // Step 1 done, then step 2's first forward: the pause did not wait for the update's end.
    expect(paused).toEqual([{ at: 'update', forwards: perStep + 1, backwards: perStep }]);
    expect(result.metrics.map(stable)).toEqual(plain.metrics.map(stable));
    // Nothing was redone.
    expect(passes.forwards).toEqual(plainModel.passes.forwards);
    expect(passes.backwards).toBe(plainModel.passes.backwards);
  });

  it('a stop while paused inside an update ends the run before the optimizer step', async () => {
    const { model } = passCountingModel();
    let optimizerSteps = 0;
    const optimizerStep = model.optimizerStep.bind(model);
    model.optimizerStep = (settings) => {
      optimizerSteps++;
      return optimizerStep(settings);
    };
    let asked = false;
    const t: Trainer = trainer(model, SFT_PASSES, {
      onProgress: (p) => {
        if (!asked && p.activity === 'update' && /: backward pass/.test(p.text)) {
          asked = true;
          t.pause();
        }
      },
      onStateChange: (state) => {
        if (state === 'paused') setTimeout(() => t.stop(), 0);
      },
    });
    const result = await t.run();
    expect(asked).toBe(true);
    expect(optimizerSteps).toBe(0);
    expect(result).toMatchObject({ stopped: true, lastStep: 0, metrics: [] });
    expect(t.state).toBe('stopped');
  });
});

describe('Trainer stopped late', () => {
  it('a stop during the evaluation after the last step reads as stopped, not finished', async () => {
    const { model, counts, mark } = observedModel();
    const t: Trainer = trainer(model, { ...SMALL, steps: 1, evalEvery: 1 }, {
      onProgress: (p) => {
        if (p.activity === 'evaluation' && p.step === 1 && (p.tokens ?? 0) > 0 && !counts.marked) {
          mark();
          t.stop();
        }
      },
    });
    const result = await t.run();
    expect(counts.marked).toBe(true);
    expect(result).toMatchObject({ stopped: true, lastStep: 1 });
    expect(result.evals.map((e) => e.step)).toEqual([0]);
    expect(t.state).toBe('stopped');
  });
});
