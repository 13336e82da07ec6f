/**
 * Page side of the head-to-head in `npm run bench:engine`: transformers.js (`AutoModelForCausalLM`, dtype fp32, the
 * WASM backend of onnxruntime-web) generating greedily, batch 1, from the ONNX copy of the same weights
 * (src/model/onnx/qwen.ts), served with the page. The library is not bundled into the page (Vite's library build
 * would inline ONNX Runtime's 20 MB WASM as base64, twice): it is imported at run time from the installed package's
 * own `dist/transformers.web.js`, its two bare imports resolved by the page's import map to the installed
 * onnxruntime-web / onnxruntime-common files (bench/engine.bench.ts). ONNX Runtime's WASM comes from the same server
 * (`/ort/`), never from a CDN: transformers.js points `wasmPaths` at jsDelivr on import, so it is overwritten
 * before any session is made.
 *
 * Timing: the app's own clock on transformers.js (src/workers/tjs/tjs-streamer.ts, which the page's transformers.js
 * backend times with too): prefill is the call to the first new token, decode the first new token to the last — N
 * decode steps of one token, the span the engine's decode timing covers. `benchFigures` turns a timing into the
 * Engines panel's figures (src/workers/engine-speed.ts), so the bench and the page compute them alike. A warm-up
 * generation runs first (WASM compile, session init).
 */
import { speedFigures, type SpeedFigures } from '../../src/workers/engine-speed.ts';
import { timingStreamer } from '../../src/workers/tjs/tjs-streamer.ts';

type Transformers = typeof import('@huggingface/transformers');

export interface TransformersOptions {
  /** URL of transformers.js's ES module (dist/transformers.web.js). */
  libUrl: string;
  /** Folder URL holding `<modelId>/config.json` and `<modelId>/onnx/model.onnx` (transformers.js's localModelPath). */
  modelBase: string;
  modelId: string;
  /** URL of the folder with ort-wasm-simd-threaded.asyncify.{mjs,wasm}. */
  ortBase: string;
}

/** One greedy generation: the first token (from prefill) and N decoded ones, and the two spans. */
export interface GenerationTiming {
  tokens: number[];
  prefillMs: number;
  decodeMs: number;
}

export interface TransformersInfo {
  loadMs: number;
  threads: number;
  crossOriginIsolated: boolean;
  ortVersion: string;
}

export interface TransformersSession {
  info: TransformersInfo;
  /** Greedy, batch 1: the prompt, then exactly `decode` + 1 new tokens. */
  generate(promptIds: readonly number[], decode: number): Promise<GenerationTiming>;
  dispose(): Promise<void>;
}

/** Loads transformers.js and the ONNX model (fp32, WASM) from our own origin. */
export async function openTransformers(o: TransformersOptions): Promise<TransformersSession> {
  const { AutoModelForCausalLM, env, Tensor } = (await import(/* @vite-ignore */ o.libUrl)) as Transformers;
  const wasm = env.backends.onnx.wasm!;
  wasm.wasmPaths = { mjs: `${o.ortBase}/ort-wasm-simd-threaded.asyncify.mjs`, wasm: `${o.ortBase}/ort-wasm-simd-threaded.asyncify.wasm` };
  env.useWasmCache = false;
  env.useBrowserCache = false;
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.localModelPath = `${o.modelBase}/`;

  const l0 = performance.now();
  const model = await AutoModelForCausalLM.from_pretrained(o.modelId, { dtype: 'fp32', device: 'wasm' });
  const loadMs = performance.now() - l0;
  return {
    info: { loadMs, threads: wasm.numThreads ?? 1, crossOriginIsolated: globalThis.crossOriginIsolated, ortVersion: env.backends.onnx.versions?.web ?? '?' },
    async generate(promptIds, decode) {
      const input_ids = new Tensor('int64', BigInt64Array.from(promptIds.map(BigInt)), [1, promptIds.length]);
      const clock = timingStreamer();
      clock.start();
      // min_new_tokens: an end-of-text token must not stop the timed run early.
      await model.generate({ inputs: input_ids, max_new_tokens: decode + 1, min_new_tokens: decode + 1, do_sample: false, streamer: clock.streamer });
      const prefillMs = clock.prefillMs();
      if (clock.tokens.length !== decode + 1 || prefillMs === null) throw new Error(`transformers.js streamed ${clock.tokens.length} tokens, expected ${decode + 1}`);
      return { tokens: [...clock.tokens], prefillMs, decodeMs: clock.decodeMs() };
    },
    dispose: async () => {
      await model.dispose();
    },
  };
}

/** A timing as the Engines panel's figures (time to first token, prefill and decode tokens/s), for `bench:engine`. */
export function benchFigures(promptTokens: number, t: GenerationTiming): SpeedFigures {
  return speedFigures(promptTokens, t.tokens.length, t.prefillMs / 1000, t.decodeMs / 1000);
}
