/**
 * The engine bench page: bundled by e2e/model/bundle.ts and served on 127.0.0.1 by bench/engine.bench.ts, it loads a
 * model folder over HTTP and times the WebGPU engine on it with measure.ts (prefill and batched decode, sampled on
 * the GPU; dispatches, queue submits, planned and allocated GPU bytes), the same code bench/full.bench.ts runs in
 * Node.
 *
 * `versus` is the head-to-head with transformers.js: the engine at batch 1, greedy (argmax on the GPU), and
 * transformers.js on the ONNX copy of the same weights (transformers-decode.ts), same prompt, same N decode steps;
 * both warmed up, then timed in alternating rounds so that a change in machine load hits both alike.
 */
import { acquireGpu } from '../../src/gpu/device.ts';
import { QwenEngine } from '../../src/gpu/engine/qwen-engine.ts';
import type { WeightFormat } from '../../src/gpu/quant.ts';
import { GREEDY } from '../../src/gpu/kernels/sample.ts';
import { fetchCheckpoint } from '../../e2e/model/fetch-checkpoint.ts';
import { QWEN2_5_0_5B_INSTRUCT, QWEN3_0_6B } from '../../src/model/config.ts';
import { countShapeDispatches, decodeContext, measureEngine, promptIds, type EngineBenchOptions, type EngineBenchResult, type ShapeDispatches } from './measure.ts';
import { openTransformers, type GenerationTiming, type TransformersInfo, type TransformersOptions } from './transformers-decode.ts';

export type { EngineBenchOptions, EngineBenchResult } from './measure.ts';

export interface VersusOptions {
  prompt: number;
  decode: number;
  quant: WeightFormat;
  rounds: number;
  transformers: TransformersOptions;
}

export interface VersusResult {
  /** One timing per round each (B = 1, greedy: prefill + first token, then N decode steps), engine first. */
  engine: GenerationTiming[];
  transformers: GenerationTiming[];
  transformersInfo: TransformersInfo;
}

/** The model shapes whose dispatches per decoded token the bench reports, by their JSON keys (as bench:full names them). */
export const COUNT_SHAPES = { 'qwen3-0.6b': QWEN3_0_6B, 'qwen2.5-0.5b': QWEN2_5_0_5B_INSTRUCT } as const;
export type CountShape = keyof typeof COUNT_SHAPES;

/** Per shape, the fused forward's counts and the unfused one's. */
export type ShapeCounts = Record<CountShape, { fused: ShapeDispatches; unfused: ShapeDispatches }>;

type Result<T> = T | { error: { name: string; message: string } };

function failure(e: unknown): { error: { name: string; message: string } } {
  const err = e instanceof Error ? e : new Error(String(e));
  return { error: { name: err.name, message: err.message } };
}

const engineBench = {
  /** The model folder served at `modelUrl`, timed by measure.ts on this page's device. */
  async run(modelUrl: string, o: EngineBenchOptions): Promise<Result<EngineBenchResult>> {
    try {
      const model = await fetchCheckpoint(modelUrl);
      const ctx = await acquireGpu({ label: 'bench-engine' });
      return await measureEngine(ctx, model.config, model.tensors, o);
    } catch (e) {
      return failure(e);
    }
  },

  /** Dispatches and submits per B = 1 decode step at the real shapes (measure.ts `countShapeDispatches`). */
  async counts(quant: WeightFormat): Promise<Result<ShapeCounts>> {
    try {
      const ctx = await acquireGpu({ label: 'bench-engine-counts' });
      const out = {} as ShapeCounts;
      for (const [name, config] of Object.entries(COUNT_SHAPES) as Array<[CountShape, (typeof COUNT_SHAPES)[CountShape]]>) {
        out[name] = { fused: await countShapeDispatches(ctx, config, quant, true), unfused: await countShapeDispatches(ctx, config, quant, false) };
      }
      return out;
    } catch (e) {
      return failure(e);
    }
  },

  async versus(modelUrl: string, o: VersusOptions): Promise<Result<VersusResult>> {
    try {
      const model = await fetchCheckpoint(modelUrl);
      const c = model.config;
      const ids = promptIds(0, o.prompt, c.vocabSize);
      const ctx = await acquireGpu({ label: 'bench-engine-versus' });
      const context = decodeContext(o.prompt, o.decode);
      const engine = await QwenEngine.create(ctx, c, { batch: 1, context, maxTokens: Math.min(o.prompt, 512), weights: o.quant });
      const tjs = await openTransformers(o.transformers).catch((e: unknown) => {
        engine.destroy();
        throw e;
      });
      try {
        engine.loadWeights(model.tensors);
        const key = (step: number) => ({ seed: 1, sequence: 0, step });
        const engineGenerate = async (steps: number): Promise<GenerationTiming> => {
          const t0 = performance.now();
          let sampled = await engine.sample([{ slot: 0, ids, key: key(0) }], GREEDY);
          const t1 = performance.now();
          const tokens = [sampled.tokens[0]];
          for (let step = 1; step <= steps; step++) {
            sampled = await engine.sample([{ slot: 0, ids: [tokens[tokens.length - 1]], key: key(step) }], GREEDY);
            tokens.push(sampled.tokens[0]);
          }
          engine.reset(0);
          return { prefillMs: t1 - t0, decodeMs: performance.now() - t1, tokens };
        };
        await engineGenerate(2); // warm-up: pipelines, first-use costs
        await tjs.generate(ids, 2); // warm-up: WASM compile, session init
        const result: VersusResult = { engine: [], transformers: [], transformersInfo: tjs.info };
        for (let r = 0; r < o.rounds; r++) {
          result.engine.push(await engineGenerate(o.decode));
          result.transformers.push(await tjs.generate(ids, o.decode));
        }
        return result;
      } finally {
        engine.destroy();
        await tjs.dispose();
      }
    } catch (e) {
      return failure(e);
    }
  },
};

declare global {
  interface Window {
    engineBench?: typeof engineBench;
  }
}

window.engineBench = engineBench;
document.title = 'engine-bench ready';
