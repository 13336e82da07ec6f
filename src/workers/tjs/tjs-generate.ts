/**
 * A Qwen model run by transformers.js (`@huggingface/transformers` 4, onnxruntime-web) inside the environment worker:
 * the second backend, for browsers without WebGPU (WASM) and for comparing speed with the WebGPU engine. Its files
 * are an ONNX export in the onnx-community layout, read by tjs-files.ts (Hub through the browser cache, a served
 * folder, or a picked folder); its tokenizer, prompts, parser and tool protocol are the engine's (`LlmPolicy` is
 * given this `generate`), so transcripts compare.
 *
 * How the files reach the library: they are held in memory and served to it through `env.fetch` under a private
 * path prefix (`env.localModelPath`), with remote models, the library's own browser cache and its WASM cache off, so
 * it never asks the network for anything. ONNX Runtime's WASM is the app's own copy (`ortWasmUrl`, emitted by Vite),
 * set as `env.backends.onnx.wasm.wasmPaths` before any session exists; the ONNX Runtime JS glue is bundled with the
 * app (onnxruntime-web's bundle build), so no CDN is reached and the page works offline once loaded.
 *
 * Each turn: greedy forward steps of the library, the token chosen by tjs-sampler.ts with the turn's seed (the
 * library's sampler is not seedable), stopping at `<|im_end|>` / `<|endoftext|>`, the token limit or the context's
 * end; prefill and decode are timed apart (tjs-streamer.ts). Turns never overlap (one session).
 */
import { createRng } from '../../data/rng.ts';
import type { ModelConfig } from '../../model/config.ts';
import { contextTokensFor } from '../../model/context.ts';
import { createTokenizer, type Tokenizer } from '../../model/tokenizer.ts';
import type { Generate, Generation } from '../../policies/llm/llm-policy.ts';
import type { LlmLoadProgress, LlmSource } from '../llm-generate.ts';
import { loadCancelled } from '../llm-source.ts';
import { chooseDevice, probeWebGpu, type TjsDeviceChoice, type WebGpuProbe } from './tjs-backend.ts';
import { readTjsModel } from './tjs-files.ts';
import type { TjsDevice, TjsDtype, TjsDtypeChoice } from './tjs-layout.ts';
import { pickToken } from './tjs-sampler.ts';
import { timingStreamer } from './tjs-streamer.ts';
import { SerialQueue } from '../../util/serial-queue.ts';

export interface TjsLoadOptions {
  dtype: TjsDtypeChoice;
  device: TjsDeviceChoice;
  signal?: AbortSignal;
  /** Positions of prompt + reply; default contextTokensFor(config) (src/model/context.ts). */
  contextTokens?: number;
}

export interface LoadedTjs {
  label: string;
  config: ModelConfig;
  tokenizer: Tokenizer;
  device: TjsDevice;
  dtype: TjsDtype;
  contextTokens: number;
  generate: Generate;
  destroy(): void;
}

type Transformers = typeof import('@huggingface/transformers');

/** The private path transformers.js reads model files under; `env.fetch` answers it from memory. */
const MEMORY_PREFIX = '/sqlenv-tjs-memory/';
const served = new Map<string, Uint8Array>();
let loads = 0;

/** Points transformers.js at our files and our WASM, once per worker; other requests go to the real fetch. */
function configure(tjs: Transformers, ortWasmUrl: string): void {
  const { env } = tjs;
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.localModelPath = MEMORY_PREFIX;
  env.useBrowserCache = false;
  env.useWasmCache = false;
  // The bundle build of onnxruntime-web carries its JS glue; only the binary is fetched, from the app itself.
  env.backends.onnx.wasm!.wasmPaths = { wasm: ortWasmUrl };
  const realFetch = globalThis.fetch.bind(globalThis);
  env.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (!url.startsWith(MEMORY_PREFIX)) return realFetch(input, init);
    const bytes = served.get(url);
    return bytes ? new Response(bytes as Uint8Array<ArrayBuffer>, { headers: { 'content-length': String(bytes.length) } }) : new Response('not found', { status: 404 });
  }) as typeof fetch;
}

/** Loads an ONNX Qwen with transformers.js on WebGPU (when present and not declined) or WASM. */
export async function loadTjs(source: LlmSource, baseUrl: string, ortWasmUrl: string, options: TjsLoadOptions, onProgress: (p: LlmLoadProgress) => void = () => undefined, probe?: WebGpuProbe): Promise<LoadedTjs> {
  const gpu = probe ?? (await probeWebGpu());
  const device = chooseDevice(gpu, options.device);
  const files = await readTjsModel(source, baseUrl, { dtype: options.dtype, device, shaderF16: gpu.shaderF16, signal: options.signal }, onProgress);
  onProgress({ phase: 'tokenizer', loaded: 0, total: 1 });
  const tokenizer = await createTokenizer(files.tokenizerJson, files.tokenizerConfigJson);
  const cancelled = () => {
    if (options.signal?.aborted) throw loadCancelled(files.label);
  };
  cancelled();
  onProgress({ phase: device === 'webgpu' ? 'gpu' : 'weights', loaded: 0, total: 1, message: `Starting ONNX Runtime (${device}, ${files.variant.dtype})…` });
  const tjs = await import('@huggingface/transformers');
  configure(tjs, ortWasmUrl);
  const id = `sqlenv/load-${++loads}`;
  const prefix = `${MEMORY_PREFIX}${id}/`;
  for (const [name, bytes] of files.files) served.set(prefix + name, bytes);
  let model: Awaited<ReturnType<Transformers['AutoModelForCausalLM']['from_pretrained']>>;
  try {
    model = await tjs.AutoModelForCausalLM.from_pretrained(id, {
      dtype: files.variant.dtype,
      device,
      ...(files.variant.externalData.length > 0 && { use_external_data_format: files.variant.externalData.length }),
    });
  } finally {
    for (const name of files.files.keys()) served.delete(prefix + name); // ONNX Runtime holds its own copy now
  }
  if (options.signal?.aborted) {
    await model.dispose();
    cancelled();
  }
  onProgress({ phase: 'ready', loaded: 1, total: 1 });

  const contextTokens = Math.max(64, contextTokensFor(files.config, options.contextTokens));
  const endTokens = new Set([tokenizer.special.imEnd, tokenizer.special.endOfText]);
  const once = async (promptIds: number[], o: Parameters<Generate>[1]): Promise<Generation> => {
    const room = contextTokens - promptIds.length;
    if (room < 1) throw new RangeError(`The prompt (${promptIds.length} tokens) fills the model's context of ${contextTokens} tokens.`);
    const rng = createRng(o.seed >>> 0);
    const logProbs: number[] = [];
    // Runs after the library's processors; leaves only the token tjs-sampler.ts picked, which greedy then takes.
    const choose = (_ids: bigint[][], logits: InstanceType<Transformers['Tensor']>) => {
      const data = logits.data as Float32Array; // (1, V): batch 1
      const pick = pickToken(data, o.temperature, o.temperature > 0 ? o.topP : 1, rng);
      logProbs.push(pick.logProb);
      data.fill(-Infinity);
      data[pick.token] = 0;
      return logits;
    };
    const clock = timingStreamer(o.onToken);
    const input_ids = new tjs.Tensor('int64', BigInt64Array.from(promptIds.map(BigInt)), [1, promptIds.length]);
    clock.start();
    await model.generate({
      inputs: input_ids,
      max_new_tokens: Math.min(o.maxNewTokens, room),
      do_sample: false,
      repetition_penalty: 1,
      eos_token_id: [...endTokens],
      // The list is spread into the library's own; a function is called as its processors are.
      logits_processor: [choose] as unknown as InstanceType<Transformers['LogitsProcessorList']>,
      streamer: clock.streamer,
    });
    const tokenIds = clock.tokens;
    const last = tokenIds.at(-1);
    const shown = last !== undefined && endTokens.has(last) ? tokenIds.slice(0, -1) : tokenIds;
    return { tokenIds: [...tokenIds], text: tokenizer.decode(shown), logProbs, prefillSeconds: (clock.prefillMs() ?? 0) / 1000, decodeSeconds: clock.decodeMs() / 1000 };
  };
  // One generation at a time: the ONNX session is not safe to run twice at once; dispose waits for the last one.
  const busy = new SerialQueue();
  return {
    label: files.label,
    config: files.config,
    tokenizer,
    device,
    dtype: files.variant.dtype,
    contextTokens,
    generate: (promptIds, o) => busy.run(() => once(promptIds, o)),
    destroy: () => {
      void busy.run(() => model.dispose());
    },
  };
}
