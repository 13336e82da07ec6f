/**
 * The training loop (src/train/trainer.ts) on the toy task and the CPU reference: metrics of a GRPO and an SFT step,
 * repeatability (same seed → same run, to the bit), resuming from a step gives the uninterrupted run, the cadence
 * of evaluations, traces and checkpoints, pause / resume / stop, micro-batching that leaves the update unchanged,
 * the KL and multi-update paths, an out-of-memory failure turned into a clear error, and config validation.
 */
import { describe, expect, it } from 'vitest';
import { LORA_TARGETS } from '../../src/model/lora.ts';
import { TrainConfigError, TrainMemoryError, Trainer } from '../../src/train/trainer.ts';
import type { StepMetrics, TrainConfig } from '../../src/train/types.ts';
import { SMALL_GRPO, useToyTask } from './toy-fixture.ts';

const f = useToyTask();

const SMALL: Partial<TrainConfig> = SMALL_GRPO;

const adapterValues = (m: ReturnType<typeof f.model>) => m.adapter.layers.flatMap((l) => LORA_TARGETS.flatMap((t) => [...l[t]!.a.data, ...l[t]!.b.data]));
const stable = (m: StepMetrics) => ({ ...m, seconds: null, tokensPerSecond: null, etaSeconds: null });

describe('Trainer', () => {
  it('reports a GRPO step: rewards by component, loss, tokens, timing, micro-batches', async () => {
    const model = f.model();
    const t = new Trainer({ model, dataset: f.dataset, executor: f.executor }, { ...SMALL, steps: 1 });
    const { metrics } = await t.run();
    const m = metrics[0];
    expect(m.step).toBe(1);
    expect(m.algo).toBe('grpo');
    expect(m.tokens).toBeGreaterThan(m.generatedTokens);
    expect(m.generatedTokens).toBeGreaterThan(0);
    expect(m.reward.total).toBeCloseTo(m.reward.correctness + 0.2 * m.reward.progress + m.reward.operational, 12);
    expect(m.seconds.total).toBeCloseTo(m.seconds.rollout + m.seconds.update, 6);
    expect(m.gpuBytes).toBeNull();
    expect(m.logprobGap).toBeLessThan(1e-5); // the sampler's log-probs are the trainer's (f32 rounding)
    expect(m.clipFraction).toBe(0); // one update per rollout: ratio 1
    expect(m.zeroVarianceGroups).toBeGreaterThanOrEqual(0);
    expect(m.microBatches).toBe(m.zeroVarianceGroups === 2 ? 0 : 1);
  });

  it('is repeatable for a seed, and resuming at a step continues the same run', async () => {
    const runOnce = async (config: Partial<TrainConfig>) => {
      const model = f.model();
      const t = new Trainer({ model, dataset: f.dataset, executor: f.executor }, config);
      const r = await t.run();
      return { model, metrics: r.metrics.map(stable) };
    };
    const a = await runOnce({ ...SMALL, steps: 4 });
    const b = await runOnce({ ...SMALL, steps: 4 });
    expect(b.metrics).toEqual(a.metrics);
    expect(adapterValues(b.model)).toEqual(adapterValues(a.model));
    const c = await runOnce({ ...SMALL, steps: 4, seed: 1 });
    expect(c.metrics.map((m) => m.tokens)).not.toEqual(a.metrics.map((m) => m.tokens));

    // Steps 1–2, then a new trainer on the same model (adapter and AdamW state kept) from step 2.
    const model = f.model();
    await new Trainer({ model, dataset: f.dataset, executor: f.executor }, { ...SMALL, steps: 2 }).run();
    const rest = await new Trainer({ model, dataset: f.dataset, executor: f.executor }, { ...SMALL, steps: 4 }).run({ startStep: 2 });
    expect(rest.metrics.map((m) => m.step)).toEqual([3, 4]);
    expect(rest.metrics.map(stable)).toEqual(a.metrics.slice(2));
    expect(adapterValues(model)).toEqual(adapterValues(a.model));
  });

  it('evaluates before step 1, every M steps and at the end; traces every N; checkpoints every K', async () => {
    const seen = { evals: [] as number[], traces: [] as number[], checkpoints: [] as number[], steps: [] as number[] };
    const t = new Trainer({ model: f.model(), dataset: f.dataset, executor: f.executor }, { ...SMALL, steps: 5, evalEvery: 2, traceEvery: 2, checkpointEvery: 3 }, {
      onStep: (m) => seen.steps.push(m.step),
      onEval: (p) => seen.evals.push(p.step),
      onTrace: (tr) => seen.traces.push(tr.step),
      onCheckpoint: (s) => void seen.checkpoints.push(s),
    });
    const r = await t.run();
    expect(seen).toEqual({ evals: [0, 2, 4, 5], traces: [2, 4], checkpoints: [3], steps: [1, 2, 3, 4, 5] });
    const e = r.evals[0];
    expect(e.trainSamples).toBe(2);
    expect(e.evalSamples).toBe(2);
    expect(e.trainSuccess).toBeGreaterThanOrEqual(0);
    expect(e.evalSuccess).toBeLessThanOrEqual(1);
    const trace = r.traces[0];
    expect(trace.actions.length).toBeGreaterThan(0);
    expect(trace.question).toMatch(/\?$/);
    expect(trace.reward).toBeCloseTo(
      trace.actions.reduce((a, x) => a + x.reward, 0),
      12,
    );
    expect(r.metrics.at(-1)!.etaSeconds).toBe(0);
    expect(r.metrics[0].etaSeconds).toBeGreaterThan(0);
    expect(t.state).toBe('finished');
  });

  it('pauses, resumes and stops between steps', async () => {
    let trainer: Trainer | null = null;
    const states: string[] = [];
    trainer = new Trainer({ model: f.model(), dataset: f.dataset, executor: f.executor }, { ...SMALL, steps: 6 }, {
      onStep: (m) => {
        if (m.step === 1) {
          trainer!.pause();
          setTimeout(() => {
            states.push(trainer!.state);
            trainer!.resume();
          }, 50);
        }
        if (m.step === 3) trainer!.stop();
      },
    });
    const r = await trainer.run();
    expect(states).toEqual(['paused']);
    expect(r.lastStep).toBe(3);
    expect(r.stopped).toBe(true);
    expect(trainer.state).toBe('stopped');
  });

  it('leaves the update unchanged when it is split into micro-batches', async () => {
    const whole = f.model();
    const split = f.model();
    const a = await new Trainer({ model: whole, dataset: f.dataset, executor: f.executor }, { ...SMALL, steps: 2 }).run();
    const b = await new Trainer({ model: split, dataset: f.dataset, executor: f.executor }, { ...SMALL, steps: 2, microBatchTokens: 40 }).run();
    expect(b.metrics[0].microBatches).toBeGreaterThan(a.metrics[0].microBatches);
    expect(b.metrics[1].loss).toBeCloseTo(a.metrics[1].loss, 6);
    const x = adapterValues(whole);
    const y = adapterValues(split);
    x.forEach((v, i) => expect(Math.abs(v - y[i])).toBeLessThan(1e-6));
  });

  it('runs the KL reference forward (adapter off) and several updates per rollout, which clip', async () => {
    const model = f.model();
    const r = await new Trainer({ model, dataset: f.dataset, executor: f.executor }, { ...SMALL, steps: 3, klBeta: 0.1, updatesPerRollout: 3, lr: 0.05 }).run();
    for (const m of r.metrics) {
      expect(m.kl).toBeGreaterThanOrEqual(0);
      expect(m.microBatches).toBe(1);
    }
    expect(r.metrics[0].kl).toBe(0); // the adapter starts at B = 0: policy = base
    expect(r.metrics[2].kl).toBeGreaterThan(0);
    expect(Math.max(...r.metrics.map((m) => m.clipFraction ?? 0))).toBeGreaterThan(0);
    // Per step: one reference forward, then 3 policy forwards (one per update), plus no others.
    expect(model.forwardCalls).toBe(3 * (1 + 3));
  });

  it('runs SFT steps on Oracle demonstrations and traces greedy episodes', async () => {
    const r = await new Trainer({ model: f.model(), dataset: f.dataset, executor: f.executor }, { ...SMALL, algo: 'sft', steps: 2, sftExamplesPerStep: 3, traceEvery: 1 }).run();
    expect(r.metrics.map((m) => m.algo)).toEqual(['sft', 'sft']);
    expect(r.metrics[0].successRate).toBe(1); // the Oracle is right
    expect(r.metrics[0].loss).toBeGreaterThan(r.metrics[1].loss - 1); // a finite NLL
    expect(r.traces.map((t) => t.step)).toEqual([1, 2]);
  });

  it('turns a GPU out-of-memory failure into a TrainMemoryError naming a smaller micro-batch', async () => {
    const model = f.model();
    const oom = new Error('out of memory');
    oom.name = 'GpuOutOfMemoryError';
    model.forward = () => Promise.reject(oom);
    const t = new Trainer({ model, dataset: f.dataset, executor: f.executor }, { ...SMALL, algo: 'sft', steps: 1 });
    const err = await t.run().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TrainMemoryError);
    expect((err as TrainMemoryError).message).toMatch(/ran out of memory.*Set "tokens per micro-batch" to \d+/);
    expect((err as TrainMemoryError).cause).toBe(oom);
    expect(t.state).toBe('failed');
  });

  it('refuses settings it cannot run', () => {
    const deps = { model: f.model(), dataset: f.dataset, executor: f.executor };
    expect(() => new Trainer(deps, { groupSize: 1 })).toThrow(TrainConfigError);
    expect(() => new Trainer(deps, { steps: 0 })).toThrow(/^Steps must be/);
    expect(() => new Trainer(deps, { topP: 0 })).toThrow(/^Top-p must be/);
    expect(() => new Trainer(deps, { lr: -1 })).toThrow(/^Learning rate must be/);
    expect(() => new Trainer(deps, { rewardWeights: { correctness: 1, progress: 1, operational: 1 } })).toThrow(/could return/);
    expect(() => new Trainer({ ...deps, dataset: { ...f.dataset, questions: [] } }, {})).toThrow(/no train questions/);
  });
});
