/**
 * The engine bench page: bundled by e2e/model/bundle.ts and served on 127.0.0.1 by bench/engine.bench.ts, it loads a
 * model folder over HTTP, runs the WebGPU engine (src/gpu/engine/qwen-engine.ts) and times prefill and batched
 * decode, both with sampling on the GPU (`QwenEngine.sample`), so each step reads back 16 bytes per sequence.
 *
 * Dispatches are the engine's own count (`lastStepDispatches`, from the Recorder's `dispatchCount`); queue submits
 * are counted by wrapping this device's `queue.submit` (the engine exposes no submit count).
 *
 * `versus` is the head-to-head with transformers.js: the engine at batch 1, greedy (argmax on the GPU), and
 * transformers.js on the ONNX copy of the same weights (transformers-decode.ts), same prompt, same N decode steps;
 * both warmed up, then timed in alternating rounds so that a change in machine load hits both alike.
 */
import { acquireGpu } from '../../src/gpu/device.ts';
import { QwenEngine } from '../../src/gpu/engine/qwen-engine.ts';
import type { WeightFormat } from '../../src/gpu/quant.ts';
import { GREEDY, type SamplingParams } from '../../src/gpu/kernels/sample.ts';
import { fetchCheckpoint } from '../../e2e/model/fetch-checkpoint.ts';
import { openTransformers, type GenerationTiming, type TransformersInfo, type TransformersOptions } from './transformers-decode.ts';

export interface EngineBenchOptions {
  batch: number;
  prompt: number;
  decode: number;
  quant: WeightFormat;
  sampling: SamplingParams;
}

export interface EngineBenchResult {
  adapter: string;
  model: { architecture: string; layers: number; hidden: number; vocab: number };
  /** Tokens per forward planned (T) and context per slot (S). */
  maxTokens: number;
  context: number;
  prefill: { tokens: number; ms: number; dispatches: number; submits: number };
  decode: { steps: number; tokens: number; ms: number; dispatchesPerStep: number[]; submitsPerStep: number[] };
  /** Compile + first run (not in the timings). */
  warmupMs: number;
}

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

type Result<T> = T | { error: { name: string; message: string } };

function failure(e: unknown): { error: { name: string; message: string } } {
  const err = e instanceof Error ? e : new Error(String(e));
  return { error: { name: err.name, message: err.message } };
}

/** Deterministic prompt ids of one slot, spread over the vocabulary. */
function promptIds(slot: number, n: number, V: number): number[] {
  return Array.from({ length: n }, (_, i) => (1000 + i * 7919 + slot * 104729) % V);
}

const engineBench = {
  async run(modelUrl: string, o: EngineBenchOptions): Promise<Result<EngineBenchResult>> {
    try {
      const model = await fetchCheckpoint(modelUrl);
      const c = model.config;
      const ctx = await acquireGpu({ label: 'bench-engine' });
      let submits = 0;
      const queue = ctx.device.queue;
      const submit = queue.submit.bind(queue);
      queue.submit = (buffers: Iterable<GPUCommandBuffer>) => {
        submits++;
        submit(buffers);
      };
      const B = o.batch;
      const context = Math.ceil((o.prompt + o.decode + 1) / 16) * 16;
      const maxTokens = Math.max(B, Math.min(o.prompt, 512));
      const engine = await QwenEngine.create(ctx, c, { batch: B, context, maxTokens, weights: o.quant });
      try {
        engine.loadWeights(model.tensors);
        const slots = Array.from({ length: B }, (_, s) => s);
        const prefillInputs = slots.map((s) => ({ slot: s, ids: promptIds(s, o.prompt, c.vocabSize), key: { seed: 1, sequence: s, step: 0 } }));

        // Warm-up: one prefill and two decode steps (pipeline creation, first-use costs), then forget the slots.
        const w0 = performance.now();
        let warm = await engine.sample(prefillInputs, o.sampling);
        for (let step = 1; step <= 2; step++) {
          warm = await engine.sample(
            slots.map((s) => ({ slot: s, ids: [warm.tokens[s]], key: { seed: 1, sequence: s, step } })),
            o.sampling,
          );
        }
        const warmupMs = performance.now() - w0;
        for (const s of slots) engine.reset(s);

        // Prefill: every slot's prompt in one call (split into forwards of ≤ T tokens by the engine), first token sampled.
        let s0 = submits;
        const p0 = performance.now();
        let sampled = await engine.sample(prefillInputs, o.sampling);
        const prefillMs = performance.now() - p0;
        const prefill = { tokens: B * o.prompt, ms: prefillMs, dispatches: engine.lastStepDispatches, submits: submits - s0 };

        // Decode: N steps of one token per sequence, all B sequences in each step, sampled on the GPU.
        const dispatchesPerStep: number[] = [];
        const submitsPerStep: number[] = [];
        const d0 = performance.now();
        for (let step = 1; step <= o.decode; step++) {
          s0 = submits;
          sampled = await engine.sample(
            slots.map((s) => ({ slot: s, ids: [sampled.tokens[s]], key: { seed: 1, sequence: s, step } })),
            o.sampling,
          );
          dispatchesPerStep.push(engine.lastStepDispatches);
          submitsPerStep.push(submits - s0);
        }
        const decodeMs = performance.now() - d0;
        return {
          adapter: `${ctx.adapterInfo.vendor}/${ctx.adapterInfo.architecture}${ctx.features.shaderF16 ? ' +f16' : ''}`,
          model: { architecture: c.architecture, layers: c.numLayers, hidden: c.hiddenSize, vocab: c.vocabSize },
          maxTokens,
          context,
          prefill,
          decode: { steps: o.decode, tokens: B * o.decode, ms: decodeMs, dispatchesPerStep, submitsPerStep },
          warmupMs,
        };
      } finally {
        engine.destroy();
      }
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
      const context = Math.ceil((o.prompt + o.decode + 1) / 16) * 16;
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
