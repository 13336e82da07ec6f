/**
 * The `train:toy` page: bundled by e2e/model/bundle.ts and served on 127.0.0.1 by scripts/train-toy.ts, it runs the
 * toy learning run (src/train/toy-run.ts) on the WebGPU model (src/gpu-tests/toy-gpu.ts) and hands every step's
 * metrics to `window.reportStep` (a function the script exposes) as they come.
 */
import { withToyModel, type PageResult } from '../../src/gpu-tests/toy-gpu.ts';
import { runToy } from '../../src/train/toy-run.ts';
import type { StepMetrics, TrainAlgo } from '../../src/train/types.ts';

export interface TrainToyOptions {
  algo: TrainAlgo;
  seed: number;
  steps: number | null;
  lr: number | null;
}

export interface TrainToySummary {
  adapter: string;
  algo: TrainAlgo;
  steps: number;
  /** GRPO: mean reward of the fresh episodes; SFT: mean NLL of the held-back demonstrations. */
  measure: string;
  before: number;
  after: number;
  seconds: number;
}

function run(o: TrainToyOptions): Promise<PageResult<TrainToySummary>> {
  return withToyModel('train-toy', async (ctx, s, model) => {
    const start = performance.now();
    const overrides = { seed: o.seed, ...(o.steps !== null && { steps: o.steps }), ...(o.lr !== null && { lr: o.lr }) };
    const r = await runToy(model, s, o.algo, overrides, { onStep: (m: StepMetrics) => window.reportStep?.(m) });
    const [measure, before, after] = r.fresh ? ['fresh mean reward', r.fresh.before.reward, r.fresh.after.reward] : ['held-back NLL', r.heldBack!.before, r.heldBack!.after];
    const adapter = `${ctx.adapterInfo.vendor}/${ctx.adapterInfo.architecture}`;
    return { adapter, algo: o.algo, steps: r.result.metrics.length, measure, before, after, seconds: (performance.now() - start) / 1000 };
  });
}

declare global {
  interface Window {
    trainToy?: { run: typeof run };
    reportStep?: (metrics: StepMetrics) => void;
  }
}

window.trainToy = { run };
document.title = 'train-toy ready';
