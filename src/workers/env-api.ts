/**
 * The environment worker's one Comlink surface: a thin facade over the services in services/ (composed by
 * env-services.ts), with the flat async methods the page calls through env-client.ts. Every method here is one line
 * that hands over to the service owning the concern; the logic, and its documentation, live there:
 *
 *   datasets (dataset-service.ts)         bundles, stored datasets, questions
 *   imports (dataset-import-service.ts)   Spider imports, SQLite files for free play
 *   episodes (episode-service.ts)         Play and Watch sessions, schema reads
 *   evaluation (evaluation-service.ts)    evaluation runs
 *   models (model-service.ts)             the held model and its policy `qwen`
 *   adapters (adapter-service.ts)         kept LoRA adapters and their policies `qwen+<id>`
 *   modelCache (model-cache-service.ts)   the browser's cache of Hub downloads
 *   training (../train-service.ts)        SFT and GRPO runs, checkpoints
 *   explain (explain-service.ts)          what an adapter changed in an episode's replies
 *
 * Tests and Node hosts call it in-thread (`createEnvApi`), the page through the worker: same interface.
 */
import { probeAdapter, type AdapterSummary } from '../gpu/adapter-probe.ts';
import type { StoredDatasetInfo } from '../data/dataset-store.ts';
import type { GivenFile } from '../data/spider-source-memory.ts';
import type { Dataset, Question } from '../data/types.ts';
import type { ActionInput } from '../env/actions.ts';
import type { ResetOptions, ResetResult, StepResult } from '../env/types.ts';
import type { EvalReport } from '../eval/evaluate.ts';
import type { EpisodeExplanation } from '../eval/explain.ts';
import type { PeftAdapterFiles } from '../model/adapter-file.ts';
import type { CachedModel } from '../model/cache.ts';
import type { DownloadProgress } from '../model/hub.ts';
import type { PolicyInfo } from '../policies/registry.ts';
import type { TableInfo } from '../sql/types.ts';
import type { DatasetSummary, EvaluationRequest, ImportProgress, LoadedModelInfo, MadeDataset, PolicyStep, SpiderImportOutcome, SpiderImportRequest, StepProgress } from './env-protocol.ts';
import type { LlmLoadProgress, LlmSource } from './llm-generate.ts';
import type { LlmPolicySettings } from './llm-settings.ts';
import { compareEngines, type Contender, type EngineComparison, type EngineCompareRequest } from './engine-compare.ts';
import { createEnvServices, type EnvServices, type EnvServicesOptions } from './services/env-services.ts';
import type { ExplainProgress, ExplainRequest } from './services/explain-service.ts';
import type { TjsLoadRequest, TjsModelInfo } from './services/tjs-model-service.ts';
import type { ActiveRunRecord, AdapterInfo, CheckpointInfo, HubAdapterOptions, ReadsDefaults, ReadsEvent, ReadsStartRequest, TrainEvent, TrainRunHistory, TrainStartRequest, TrainStatus } from './train-protocol.ts';

export class EnvApi {
  constructor(private readonly s: EnvServices) {}

  // ---- Datasets (dataset-service.ts, dataset-import-service.ts) ----

  bundles(): Promise<string[]> { return this.s.datasets.bundles(); }
  loadDataset(name: string): Promise<DatasetSummary> { return this.s.datasets.loadDataset(name); }
  addDataset(dataset: Dataset): DatasetSummary { return this.s.datasets.addDataset(dataset); }
  removeDataset(name: string): void { this.s.datasets.removeDataset(name); }
  question(dataset: string, questionId: string): Promise<Question> { return this.s.datasets.question(dataset, questionId); }
  storedDatasets(): Promise<StoredDatasetInfo[]> { return this.s.datasets.storedDatasets(); }
  restoreStoredDatasets(): Promise<DatasetSummary[]> { return this.s.datasets.restoreStoredDatasets(); }
  datasetNameProblem(name: string): Promise<string | null> { return this.s.datasets.datasetNameProblem(name); }
  removeStoredDataset(name: string): Promise<void> { return this.s.datasets.removeStoredDataset(name); }
  importSpiderFiles(request: SpiderImportRequest, onProgress?: (progress: ImportProgress) => void): Promise<SpiderImportOutcome> { return this.s.imports.importSpiderFiles(request, onProgress); }
  cancelImport(importId: string): void { this.s.imports.cancelImport(importId); }
  openSqliteFile(name: string, file: GivenFile): Promise<MadeDataset> { return this.s.imports.openSqliteFile(name, file); }

  // ---- Episodes and evaluation (episode-service.ts, evaluation-service.ts) ----

  policies(): PolicyInfo[] { return this.s.policies.list(); }
  schema(dataset: string, dbId: string): Promise<TableInfo[]> { return this.s.episodes.schema(dataset, dbId); }
  reset(sessionId: string, dataset: string, options: ResetOptions, policy?: string): Promise<ResetResult> { return this.s.episodes.reset(sessionId, dataset, options, policy); }
  step(sessionId: string, action: ActionInput): Promise<StepResult> { return this.s.episodes.step(sessionId, action); }
  policyStep(sessionId: string, onProgress?: (progress: StepProgress) => void): Promise<PolicyStep> { return this.s.episodes.policyStep(sessionId, onProgress); }
  evaluate(request: EvaluationRequest, onProgress?: (done: number, total: number, current?: StepProgress | null) => void): Promise<EvalReport> { return this.s.evaluation.evaluate(request, onProgress); }
  cancelEvaluation(runId: string): void { this.s.evaluation.cancelEvaluation(runId); }

  // ---- The model and its cache (model-service.ts, model-cache-service.ts) ----

  loadModel(source: LlmSource, settings?: LlmPolicySettings, onProgress?: (p: LlmLoadProgress) => void): Promise<LoadedModelInfo> { return this.s.models.loadModel(source, settings, onProgress); }
  cancelModelLoad(): void { this.s.models.cancelModelLoad(); }
  setModelSettings(settings: LlmPolicySettings): Promise<LoadedModelInfo> { return this.s.models.setModelSettings(settings); }
  modelInfo(): LoadedModelInfo | null { return this.s.models.modelInfo(); }
  unloadModel(): void { this.s.models.unloadModel(); }
  cachedModels(): Promise<CachedModel[]> { return this.s.modelCache.cachedModels(); }
  clearCachedModel(repo: string, options?: { revision?: string; base?: string }): Promise<number> { return this.s.modelCache.clearCachedModel(repo, options); }
  clearModelCache(): Promise<void> { return this.s.modelCache.clearModelCache(); }
  /** The WebGPU adapter this worker would train on (a software fallback is ~1000× slower); null without WebGPU. */
  gpuAdapter(): Promise<AdapterSummary | null> { return probeAdapter(); }

  // ---- The transformers.js backend and the Engines panel (tjs-model-service.ts, engine-compare.ts) ----

  loadTjsModel(request: TjsLoadRequest, onProgress?: (p: LlmLoadProgress) => void): Promise<TjsModelInfo> { return this.s.tjsModels.loadTjsModel(request, onProgress); }
  cancelTjsLoad(): void { this.s.tjsModels.cancelTjsLoad(); }
  setTjsSettings(settings: LlmPolicySettings): Promise<TjsModelInfo> { return this.s.tjsModels.setTjsSettings(settings); }
  tjsModelInfo(): TjsModelInfo | null { return this.s.tjsModels.tjsModelInfo(); }
  unloadTjsModel(): void { this.s.tjsModels.unloadTjsModel(); }
  /** The same prompt on each loaded backend (WebGPU engine first): time to first token, prefill and decode tokens/s. */
  compareEngines(request?: EngineCompareRequest): Promise<EngineComparison> { return compareLoaded(this.s, request); }

  // ---- Adapters (adapter-service.ts) ----

  listAdapters(): Promise<AdapterInfo[]> { return this.s.adapters.listAdapters(); }
  adapterFiles(id: string): Promise<PeftAdapterFiles> { return this.s.adapters.adapterFiles(id); }
  loadAdapterFiles(files: { safetensors: Uint8Array; configJson: string }, name: string): Promise<AdapterInfo> { return this.s.adapters.loadAdapterFiles(files, name); }
  loadAdapterFromHub(repo: string, options?: HubAdapterOptions, onProgress?: (p: DownloadProgress) => void): Promise<AdapterInfo> { return this.s.adapters.loadAdapterFromHub(repo, options, onProgress); }
  deleteAdapter(id: string): Promise<void> { return this.s.adapters.deleteAdapter(id); }
  /** An episode's model replies scored under the base and under base + a kept adapter (explain-service.ts). */
  explainEpisode(request: ExplainRequest, onProgress?: (p: ExplainProgress) => void): Promise<EpisodeExplanation> { return this.s.explain.explainEpisode(request, onProgress); }
  cancelExplain(): void { this.s.explain.cancel(); }

  // ---- Training (train-service.ts) ----

  /** Runs SFT or GRPO on the loaded model, streaming events; resolves when the run has ended. */
  startTraining(request: TrainStartRequest, onEvent: (e: TrainEvent) => void): Promise<void> { return this.s.training.start(request, onEvent); }
  pauseTraining(): void { this.s.training.pause(); }
  resumeTraining(): void { this.s.training.resumeRun(); }
  /** `leaving`: the page is going away; the run's record stays, so the next page offers to resume it. */
  stopTraining(options?: { leaving?: boolean }): void { this.s.training.stop(options); }
  trainingStatus(): TrainStatus { return this.s.training.status(); }
  listCheckpoints(): Promise<CheckpointInfo[]> { return this.s.training.listCheckpoints(); }
  /** Continues a saved run from its checkpoint (same model loaded); resolves when it has ended. */
  resumeFromCheckpoint(id: string, onEvent: (e: TrainEvent) => void): Promise<void> { return this.s.training.resume(id, onEvent); }
  deleteCheckpoint(id: string): Promise<void> { return this.s.training.deleteCheckpoint(id); }
  trainHistory(runId: string): Promise<TrainRunHistory> { return this.s.training.history(runId); }
  /** Runs an earlier page left unfinished (reloaded or closed mid-run): what to load and where to resume from. */
  interruptedTrainingRuns(): Promise<ActiveRunRecord[]> { return this.s.training.interruptedRuns(); }
  discardInterruptedRun(runId: string): Promise<void> { return this.s.training.discardInterruptedRun(runId); }
  /** The toy task "learn to read": its default sizes and fixed-answer ceiling; its run (no loaded model needed). */
  readsDefaults(): ReadsDefaults { return this.s.training.readsDefaults(); }
  startReadsTraining(request: ReadsStartRequest, onEvent: (e: ReadsEvent) => void): Promise<void> { return this.s.training.startReads(request, onEvent); }

  close(): Promise<void> { return this.s.close(); }
}

/** The Engines panel's contenders: the engine's model and the transformers.js one, whichever are loaded. */
function compareLoaded(s: EnvServices, request?: EngineCompareRequest): Promise<EngineComparison> {
  const engine = s.models.loaded();
  const tjs = s.tjsModels.loaded();
  const contenders: Contender[] = [];
  if (engine) contenders.push({ backend: 'WebGPU engine', detail: `WebGPU (${engine.adapter}), ${engine.weights}`, generate: engine.generate });
  if (tjs) contenders.push({ backend: 'transformers.js', detail: `${tjs.device === 'webgpu' ? 'WebGPU' : 'WASM'}, ${tjs.dtype}`, generate: tjs.generate });
  const tokenizer = engine?.tokenizer ?? tjs?.tokenizer;
  if (!tokenizer) return Promise.reject(new RangeError('Load a model in at least one backend first (the Model panel, or transformers.js below it).'));
  return compareEngines(tokenizer, contenders, request);
}

/** The facade over a fresh composition of services (the worker's, or an in-thread one for tests and Node hosts). */
export function createEnvApi(options: EnvServicesOptions): EnvApi {
  return new EnvApi(createEnvServices(options));
}
