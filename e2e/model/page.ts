/**
 * The model page: a script bundled by e2e/model/bundle.ts and served on the app's origin, exposing `window.modelPage`
 * so Playwright specs and `scripts/model-logits.ts` can drive the real browser paths: Hub downloads into Cache
 * Storage (hub.ts, cache.ts) and the WebGPU engine's logits for a model served over HTTP. Results are plain JSON;
 * errors come back as `{ error: { name, message } }` so a spec can assert on the typed error's name.
 */
import { acquireGpu } from '../../src/gpu/device.ts';
import { QwenEngine } from '../../src/gpu/engine/qwen-engine.ts';
import type { WeightFormat } from '../../src/gpu/quant.ts';
import { CacheStorageFileStore, type CachedModel } from '../../src/model/cache.ts';
import { downloadModel, type DownloadProgress } from '../../src/model/hub.ts';
import { loadCheckpoint } from '../../src/model/load.ts';
import { fetchCheckpoint } from './fetch-checkpoint.ts';
import { topLogits, type TopLogits } from '../../src/model/top-logits.ts';

type Result<T> = T | { error: { name: string; message: string } };

function failure(e: unknown): { error: { name: string; message: string } } {
  const err = e instanceof Error ? e : new Error(String(e));
  return { error: { name: err.name, message: err.message } };
}

export interface DownloadSummary {
  vocabSize: number;
  tensors: number;
  /** Bytes of each safetensors file. */
  weightBytes: number[];
  progress: DownloadProgress[];
}

const store = new CacheStorageFileStore();

const modelPage = {
  /** Downloads `repo` from `base` into Cache Storage (resuming partial files); `abortAtBytes` cancels mid-weights. */
  async download(base: string, repo: string, abortAtBytes?: number): Promise<Result<DownloadSummary>> {
    const progress: DownloadProgress[] = [];
    const ctl = new AbortController();
    try {
      const m = await downloadModel({
        repo,
        base,
        store,
        signal: ctl.signal,
        onProgress: (p) => {
          progress.push(p);
          if (abortAtBytes !== undefined && p.file.endsWith('.safetensors') && p.fileLoaded >= abortAtBytes) ctl.abort();
        },
      });
      const loaded = loadCheckpoint(m.checkpoint);
      return { vocabSize: loaded.config.vocabSize, tensors: loaded.tensors.size, weightBytes: m.checkpoint.safetensors.map((b) => b.length), progress };
    } catch (e) {
      return failure(e);
    }
  },
  list(): Promise<CachedModel[]> {
    return store.list();
  },
  clearModel(repo: string): Promise<number> {
    return store.clearModel(repo);
  },
  clearAll(): Promise<void> {
    return store.clearAll();
  },
  /** The last position's top-k logits of `ids` from the WebGPU engine, for the model whose files are under `modelUrl`. */
  async gpuLogits(modelUrl: string, ids: number[], weights: WeightFormat, k = 20): Promise<Result<TopLogits & { adapter: string }>> {
    try {
      const model = await fetchCheckpoint(modelUrl);
      const ctx = await acquireGpu({ label: 'model-logits' });
      const context = Math.max(16, Math.ceil(ids.length / 16) * 16);
      // An f32 KV cache: these logits are compared with the float64 reference's (model:logits, its e2e test).
      const engine = await QwenEngine.create(ctx, model.config, { batch: 1, context, maxTokens: context, weights, kvCache: 'f32' });
      try {
        engine.loadWeights(model.tensors);
        const logits = await engine.step([{ slot: 0, ids }]);
        const adapter = `${ctx.adapterInfo.vendor}/${ctx.adapterInfo.architecture}${ctx.features.shaderF16 ? ' +f16' : ''}`;
        return { ...topLogits(logits.subarray(0, model.config.vocabSize), k), adapter };
      } finally {
        engine.destroy(); // the engine owns its buffers; the context is ours and goes with the page
      }
    } catch (e) {
      return failure(e);
    }
  },
};

declare global {
  interface Window {
    modelPage?: typeof modelPage;
  }
}

window.modelPage = modelPage;
document.title = 'model-page ready';
