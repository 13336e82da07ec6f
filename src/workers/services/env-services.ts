/**
 * The composition root: makes every service of the environment host from what the host provides (SQL executors,
 * bundles, storage, the model engine) and wires them together. The worker (env.worker.ts) hosts one; Node hosts (the
 * CLI, tests) make their own with Node executors and no engine. Each composition owns its `PolicyRegistry`, so two
 * hosts never see each other's policies.
 *
 * Who needs whom (arrows point at what is used):
 *   episodes, evaluation ──▶ datasets, policies
 *   imports ──▶ datasets ──(onReplaced)──▶ episodes drop stale sessions
 *   models ──▶ datasets (few-shot prompts), policies ('qwen')
 *   adapters ──▶ models (listening), policies ('qwen+<id>'), cache
 *   training ──▶ models (the base), adapters' library, datasets
 */
import type { BundleReader } from '../../data/bundle.ts';
import { indexedDbDatasetStore, type DatasetStore } from '../../data/dataset-store.ts';
import type { EnvConfig } from '../../env/types.ts';
import { CacheStorageFileStore } from '../../model/cache.ts';
import { PolicyRegistry } from '../../policies/registry.ts';
import type { SqlExecutor } from '../../sql/executor.ts';
import { TrainService } from '../train-service.ts';
import type { ReadsTaskHost } from '../train-reads-session.ts';
import { indexedDbTrainStore, memoryTrainStore, type TrainStore } from '../train-store.ts';
import { AdapterService } from './adapter-service.ts';
import { DatasetImportService } from './dataset-import-service.ts';
import { DatasetService } from './dataset-service.ts';
import { EpisodeService } from './episode-service.ts';
import { EvaluationService } from './evaluation-service.ts';
import { ExplainService } from './explain-service.ts';
import { ModelCacheService } from './model-cache-service.ts';
import { ModelService, type CreateTrainSession, type LoadLlm } from './model-service.ts';
import { TjsModelService, type LoadTjs } from './tjs-model-service.ts';

export interface EnvServicesOptions {
  /** Makes a SQL executor; called once for interactive sessions and once per evaluation run, import or shot set. */
  createExecutor: () => SqlExecutor;
  /** Where a named bundle is read from (`demo`, `spider`). */
  bundleReader: (name: string) => BundleReader;
  /** Names of the bundles that were built (`bundles/index.json`). */
  bundleNames: () => Promise<string[]>;
  envConfig?: Partial<EnvConfig>;
  /**
   * Where datasets made in the page are kept across reloads. Default: IndexedDB where it exists, else nowhere (they
   * last as long as the services).
   */
  datasetStore?: DatasetStore | null;
  /** Loads a language model (the WebGPU engine in the worker); absent where no model can run (Node tests). */
  loadLlm?: LoadLlm;
  /** Where Hub downloads are cached (listed and cleared from the Model panel); default Cache Storage where it exists. */
  modelCache?: CacheStorageFileStore | null;
  /** Checkpoints, run histories and adapters; default IndexedDB where it exists, else memory. */
  trainStore?: TrainStore;
  /** A trainable copy of the loaded model for a run (the WebGPU trainer in the worker; the f64 reference in tests). */
  createTrainSession?: CreateTrainSession;
  /** The Train view's toy task "learn to read" (its own tiny model: ../train-reads-session.ts); absent where it cannot run. */
  readsTask?: ReadsTaskHost;
  /** Loads an ONNX model with transformers.js (the worker); absent where it cannot run. */
  loadTjs?: LoadTjs;
}

export interface EnvServices {
  /** The policies this host offers: the built-ins, the loaded model's and its adapters'. */
  policies: PolicyRegistry;
  datasets: DatasetService;
  imports: DatasetImportService;
  episodes: EpisodeService;
  evaluation: EvaluationService;
  models: ModelService;
  /** The transformers.js model and its policy 'qwen-tjs' (tjs-model-service.ts). */
  tjsModels: TjsModelService;
  adapters: AdapterService;
  modelCache: ModelCacheService;
  training: TrainService;
  /** What an adapter changed in an episode's replies (explain-service.ts). */
  explain: ExplainService;
  /** Stops runs, imports, loads and training, drops the model and closes the interactive executor. */
  close(): Promise<void>;
}

export function createEnvServices(options: EnvServicesOptions): EnvServices {
  const { createExecutor, envConfig } = options;
  const policies = new PolicyRegistry();
  const datasetStore = options.datasetStore !== undefined ? options.datasetStore : typeof indexedDB === 'undefined' ? null : indexedDbDatasetStore();
  const trainStore = options.trainStore ?? (typeof indexedDB === 'undefined' ? memoryTrainStore() : indexedDbTrainStore());
  const cache = options.modelCache !== undefined ? options.modelCache : typeof caches === 'undefined' ? null : new CacheStorageFileStore();

  const datasets = new DatasetService({
    bundleReader: options.bundleReader,
    bundleNames: options.bundleNames,
    store: datasetStore,
    onReplaced: (name) => episodes.forgetDataset(name),
  });
  const dataset = (name: string) => datasets.get(name);
  const episodes = new EpisodeService({ dataset, policies, createExecutor, envConfig });
  const evaluation = new EvaluationService({ dataset, policies, createExecutor, envConfig });
  const imports = new DatasetImportService({ datasets, createExecutor });
  const models = new ModelService({ policies, dataset, createExecutor, envConfig, loadLlm: options.loadLlm, createTrainSession: options.createTrainSession });
  const tjsModels = new TjsModelService({ policies, dataset, createExecutor, envConfig, loadTjs: options.loadTjs });
  const adapters = new AdapterService({ store: trainStore, policies, models, cache });
  const modelCache = new ModelCacheService(cache);
  const training = new TrainService({
    store: trainStore,
    adapters: adapters.library,
    base: () => models.trainBase(),
    dataset,
    createExecutor,
    envConfig,
    beforeSession: () => models.loaded()?.release?.(),
    ...(options.readsTask && { reads: options.readsTask }),
  });
  const explain = new ExplainService({
    models,
    adapters: adapters.library,
    dataset,
    createExecutor,
    envConfig,
    trainingStatus: () => training.status(),
    beforeSession: () => models.loaded()?.release?.(),
  });

  return {
    policies,
    datasets,
    imports,
    episodes,
    evaluation,
    models,
    tjsModels,
    adapters,
    modelCache,
    training,
    explain,
    async close() {
      explain.cancel();
      evaluation.close();
      imports.close();
      training.stop();
      models.close();
      tjsModels.close();
      await episodes.close();
    },
  };
}
