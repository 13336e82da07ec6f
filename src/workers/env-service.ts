/**
 * The environment service: everything the page asks of datasets, episodes and evaluation, behind one async object.
 * It runs inside `env.worker.ts` (exposed with Comlink), so the UI thread only renders; tests call it directly.
 *
 * Sessions: Play and Watch each hold a session id with its own `SqlEnv`. Interactive sessions and evaluation runs
 * use separate SQL executors, so a runaway query in Play, which restarts its SQL worker, never fails an evaluation
 * that is running at the same time.
 *
 * Datasets made in the page (a Spider folder or zip imported, a SQLite file opened for free play) are registered
 * here like bundles and kept in a `DatasetStore` (IndexedDB in the page), so after a reload a name that is not a
 * bundle is looked up in the store first; imports run in this worker, with progress, and can be cancelled.
 *
 * Training (train-service.ts) and adapters (adapter-library.ts) are delegated; every adapter kept for the loaded
 * model plays as the policy `qwen+<id>` beside the base `qwen`, with the same settings, so "base vs trained" is two
 * policies. (Over 600 lines: the service is the worker's one Comlink surface, and each method here is the thin
 * entry point of a module that holds the logic.)
 */
import type { BundleReader } from '../data/bundle.ts';
import { DatasetError, readBundle } from '../data/bundle.ts';
import { datasetNameProblem, indexedDbDatasetStore, type DatasetStore, type StoredDatasetInfo } from '../data/dataset-store.ts';
import { buildFreePlayDataset } from '../data/free-play.ts';
import { importSpider, type ImportReport } from '../data/spider.ts';
import { spiderSourceFromFiles, type GivenFile } from '../data/spider-source-memory.ts';
import type { Dataset, Question, SplitSelector } from '../data/types.ts';
import type { Rng } from '../data/rng.ts';
import type { ActionInput } from '../env/actions.ts';
import { SqlEnv } from '../env/env.ts';
import type { EnvConfig, Observation, ResetOptions, ResetResult, StepResult } from '../env/types.ts';
import { policyRng } from '../eval/episode.ts';
import { evaluate, type EvalReport } from '../eval/evaluate.ts';
import { generationRecord, transcriptStep, type TranscriptStep } from '../eval/transcript.ts';
import type { HistoryEntry, Policy, PolicyDecision } from '../policies/policy.ts';
import { LlmPolicy, type LlmDecision } from '../policies/llm/llm-policy.ts';
import { createPolicy, listPolicies, registerPolicy, unregisterPolicy, type PolicyInfo } from '../policies/registry.ts';
import type { LlmLoadOptions, LlmLoadProgress, LlmSource, LoadedLlm } from './llm-generate.ts';
import { describeLlmSettings, resolveLlmSettings, type LlmPolicySettings, type ResolvedLlmSettings } from './llm-settings.ts';
import { buildOracleShots, selectShotQuestions, type Shot } from '../policies/llm/prompt.ts';
import { CacheStorageFileStore, type CachedModel } from '../model/cache.ts';
import type { SqlExecutor } from '../sql/executor.ts';
import type { TableInfo } from '../sql/types.ts';
import { downloadPeftAdapter } from '../model/adapter-hub.ts';
import { MemoryFileStore } from '../model/cache.ts';
import type { DownloadProgress } from '../model/hub.ts';
import type { PeftAdapterFiles } from '../model/adapter-file.ts';
import type { Generate } from '../policies/llm/llm-policy.ts';
import type { ModelConfig } from '../model/config.ts';
import { AdapterLibrary } from './adapter-library.ts';
import type { AdapterInfo, CheckpointInfo, HubAdapterOptions, TrainEvent, TrainRunHistory, TrainStartRequest, TrainStatus } from './train-protocol.ts';
import { TrainService, type TrainBase, type TrainModelRequest, type TrainSession } from './train-service.ts';
import { indexedDbTrainStore, memoryTrainStore, type TrainStore } from './train-store.ts';

/** A question as lists show it: everything but the gold result rows. */
export type QuestionSummary = Omit<Question, 'goldResult'>;

export interface DatasetSummary {
  name: string;
  description: string;
  license: string;
  databases: Array<{ id: string; tables: string[] }>;
  questions: QuestionSummary[];
}

export interface EvaluationRequest {
  runId: string;
  dataset: string;
  policy: string;
  split: SplitSelector;
  episodes: number | 'all';
  seed: number;
}

export interface PolicyStep {
  decision: PolicyDecision;
  result: StepResult;
  step: TranscriptStep;
}

interface Session {
  dataset: string;
  env: SqlEnv;
  first: Observation | null;
  history: HistoryEntry[];
  policy: Policy | null;
  /** The policy's generator, seeded as `runEpisode` seeds it, so Watch replays what Evaluate records. */
  rng: Rng;
}

export interface EnvServiceOptions {
  /** Makes a SQL executor; called once for interactive sessions and once per evaluation run. */
  createExecutor: () => SqlExecutor;
  /** Where a named bundle is read from (`demo`, `spider`). */
  bundleReader: (name: string) => BundleReader;
  /** Names of the bundles that were built (`bundles/index.json`). */
  bundleNames: () => Promise<string[]>;
  envConfig?: Partial<EnvConfig>;
  /**
   * Where datasets made in the page are kept across reloads. Default: IndexedDB where it exists, else nowhere (they
   * last as long as the service).
   */
  datasetStore?: DatasetStore | null;
  /** Loads a language model (the WebGPU engine in the worker); absent where no model can run (Node tests). */
  loadLlm?: (source: LlmSource, onProgress: (p: LlmLoadProgress) => void, options: LlmLoadOptions) => Promise<LoadedLlm>;
  /** Where Hub downloads are cached (listed and cleared from the Model panel); default Cache Storage where it exists. */
  modelCache?: CacheStorageFileStore | null;
  /** Checkpoints, run histories and adapters; default IndexedDB where it exists, else memory. */
  trainStore?: TrainStore;
  /** A trainable copy of the loaded model for a run (the WebGPU trainer in the worker; the f64 reference in tests). */
  createTrainSession?: (source: LlmSource, loaded: LoadedLlm, request: TrainModelRequest) => Promise<TrainSession>;
}

/** A model the service holds, as the page shows it. */
export interface LoadedModelInfo {
  /** The policy name it was registered under. */
  policy: string;
  label: string;
  architecture: string;
  layers: number;
  hidden: number;
  vocab: number;
  contextTokens: number;
  adapter: string;
  weights: string;
  maxNewTokens: number;
  /** Every setting the policy plays with, defaults filled in. */
  settings: ResolvedLlmSettings;
  /** Shots actually built (fewer than asked when the shot dataset has fewer train questions). */
  shotsBuilt: number;
}

export type { LlmPolicySettings } from './llm-settings.ts';

/** The policy name a loaded model plays under. */
export const LLM_POLICY = 'qwen';

/** A Spider folder or zip a person gave the page, to import as the dataset `name`. */
export interface SpiderImportRequest {
  importId: string;
  name: string;
  /** Names the files in messages: the folder's or the zip's name. */
  label: string;
  files: GivenFile[];
}

/** Where an import is: checking gold queries (`questions`), then writing databases to storage (`saving`). */
export interface ImportProgress {
  phase: 'reading' | 'questions' | 'saving';
  done: number;
  total: number;
}

/** A dataset made in the page: its summary, and how it was kept (`stored` null with the reason when it was not). */
export interface MadeDataset {
  summary: DatasetSummary;
  stored: StoredDatasetInfo | null;
  storageError: string | null;
}

export interface SpiderImportOutcome extends MadeDataset {
  report: ImportReport;
}

/** Progress reports cross to the page at most this often (a full Spider import checks thousands of questions). */
const PROGRESS_INTERVAL_MS = 100;

/** Gold queries are trusted but some are slow on big databases: the limit the import script uses too. */
const GOLD_TIMEOUT_MS = 20_000;

/** The executor with a longer time limit for every query (an import runs gold SQL, not an agent's). */
function withQueryTimeout(executor: SqlExecutor, timeoutMs: number): SqlExecutor {
  return {
    load: (dbKey, bytes) => executor.load(dbKey, bytes),
    query: (dbKey, sql, limits) => executor.query(dbKey, sql, { timeoutMs, ...limits }),
    tables: (dbKey) => executor.tables(dbKey),
    describe: (dbKey, table) => executor.describe(dbKey, table),
    sample: (dbKey, table, rows) => executor.sample(dbKey, table, rows),
    close: () => executor.close(),
  };
}

export function summarizeDataset(dataset: Dataset): DatasetSummary {
  return {
    name: dataset.name,
    description: dataset.description,
    license: dataset.license,
    databases: dataset.databases.map((d) => ({ id: d.id, tables: d.tables })),
    questions: dataset.questions.map(({ goldResult: _gold, ...rest }) => rest),
  };
}

export class EnvService {
  private readonly options: EnvServiceOptions;
  private readonly datasets = new Map<string, Dataset>();
  private readonly loading = new Map<string, Promise<Dataset>>();
  private readonly sessions = new Map<string, Session>();
  private readonly runs = new Map<string, AbortController>();
  private readonly imports = new Map<string, AbortController>();
  private interactive: SqlExecutor | null = null;
  private readonly store: DatasetStore | null;
  private llm: LoadedLlm | null = null;
  private llmInfo: LoadedModelInfo | null = null;
  private modelLoad: AbortController | null = null;
  private llmSource: LlmSource | null = null;
  /** Makes the loaded model's LlmPolicy (with the current settings) on a given generate; null when no model is held. */
  private makeLlmPolicy: ((generate: Generate, name: string) => LlmPolicy) | null = null;
  private readonly adapterPolicies = new Set<string>();
  private adapterSyncs = 0;
  private readonly adapters: AdapterLibrary;
  private readonly training: TrainService;

  constructor(options: EnvServiceOptions) {
    this.options = options;
    this.store = options.datasetStore !== undefined ? options.datasetStore : typeof indexedDB === 'undefined' ? null : indexedDbDatasetStore();
    const trainStore = options.trainStore ?? (typeof indexedDB === 'undefined' ? memoryTrainStore() : indexedDbTrainStore());
    this.adapters = new AdapterLibrary(trainStore, () => this.syncAdapterPolicies());
    this.training = new TrainService({
      store: trainStore,
      adapters: this.adapters,
      base: () => this.trainBase(),
      dataset: (name) => this.dataset(name),
      createExecutor: options.createExecutor,
      envConfig: options.envConfig,
      beforeSession: () => this.llm?.release?.(),
    });
  }

  private executor(): SqlExecutor {
    this.interactive ??= this.options.createExecutor();
    return this.interactive;
  }

  /** Loads a named bundle once (later calls share the first load). */
  private dataset(name: string): Promise<Dataset> {
    const ready = this.datasets.get(name);
    if (ready) return Promise.resolve(ready);
    let pending = this.loading.get(name);
    if (!pending) {
      pending = this.readNamed(name).then((d) => {
        this.datasets.set(name, d);
        return d;
      });
      pending.catch(() => this.loading.delete(name));
      this.loading.set(name, pending);
    }
    return pending;
  }

  /** A dataset stored in this browser (made in the page earlier) by that name, else the bundle. */
  private async readNamed(name: string): Promise<Dataset> {
    const stored = this.store ? await this.store.load(name).catch(() => null) : null;
    return stored ?? readBundle(this.options.bundleReader(name));
  }

  /** Bundles built with the app, e.g. ['demo', 'spider']. */
  bundles(): Promise<string[]> {
    return this.options.bundleNames();
  }

  async loadDataset(name: string): Promise<DatasetSummary> {
    return summarizeDataset(await this.dataset(name));
  }

  /** Registers a dataset made in the page (an imported Spider folder, a dropped SQLite file) under its name. */
  addDataset(dataset: Dataset): DatasetSummary {
    this.datasets.set(dataset.name, dataset);
    for (const [id, s] of this.sessions) if (s.dataset === dataset.name) this.sessions.delete(id);
    return summarizeDataset(dataset);
  }

  removeDataset(name: string): void {
    this.datasets.delete(name);
    this.loading.delete(name);
  }

  async question(dataset: string, questionId: string): Promise<Question> {
    const question = (await this.dataset(dataset)).questions.find((q) => q.id === questionId);
    if (!question) throw new RangeError(`No question '${questionId}' in dataset '${dataset}'.`);
    return question;
  }

  /**
   * Tables and their columns of a database, for the editor's completion and the schema panel. Reading the schema
   * this way is not an environment step: it costs nothing and is not recorded.
   */
  async schema(dataset: string, dbId: string): Promise<TableInfo[]> {
    const key = `schema:${dataset}/${dbId}`;
    const executor = this.executor();
    await executor.load(key, await (await this.dataset(dataset)).loadDatabase(dbId));
    const tables = await executor.tables(key);
    return Promise.all(tables.map((t) => executor.describe(key, t)));
  }

  /**
   * Loads a language model (replacing the one held) and registers it as the policy `qwen`, which Watch and
   * Evaluate then list. Progress is reported as files download, then tokenizer, weights and GPU upload; later the
   * same callback hears of device-loss recoveries. Settings are checked first (LlmSettingsError); a load already
   * running is cancelled; `cancelModelLoad` stops this one (LoadCancelledError), keeping the model held before.
   */
  async loadModel(source: LlmSource, settings: LlmPolicySettings = {}, onProgress?: (p: LlmLoadProgress) => void): Promise<LoadedModelInfo> {
    if (!this.options.loadLlm) throw new Error('This environment cannot run language models (no WebGPU engine here).');
    const resolved = resolveLlmSettings(settings);
    this.modelLoad?.abort();
    const controller = new AbortController();
    this.modelLoad = controller;
    let last = 0;
    const report = (p: LlmLoadProgress): void => {
      const now = Date.now();
      if (p.phase === 'download' && now - last < PROGRESS_INTERVAL_MS && p.loaded < p.total) return;
      last = now;
      onProgress?.(p);
    };
    let loaded: LoadedLlm;
    try {
      loaded = await this.options.loadLlm(source, report, { weights: resolved.weights, signal: controller.signal });
    } finally {
      if (this.modelLoad === controller) this.modelLoad = null;
    }
    if (controller.signal.aborted) {
      loaded.destroy();
      throw new DOMException('Model load cancelled', 'AbortError');
    }
    this.unloadModel();
    this.llm = loaded;
    this.llmSource = source;
    return this.setModelSettings(resolved);
  }

  /** Stops a model load in progress (a Hub download keeps its bytes and resumes next time). */
  cancelModelLoad(): void {
    this.modelLoad?.abort(new DOMException('Model load cancelled', 'AbortError'));
  }

  /**
   * Re-registers the loaded model's policy with new settings (thinking, shots, sampling, token limit), without
   * reloading; sessions pick them up at their next reset. A new weight format needs `loadModel`.
   */
  async setModelSettings(settings: LlmPolicySettings): Promise<LoadedModelInfo> {
    const loaded = this.llm;
    if (!loaded) throw new RangeError('No model is loaded: load one first.');
    const resolved = resolveLlmSettings({ ...settings, weights: loaded.weights });
    const shots = resolved.shots > 0 ? await this.oracleShots(resolved.shotDataset, resolved.shots) : [];
    if (this.llm !== loaded) throw new RangeError('The model changed while its settings were applied.');
    const info: LoadedModelInfo = {
      policy: LLM_POLICY,
      label: loaded.label,
      architecture: loaded.config.architecture,
      layers: loaded.config.numLayers,
      hidden: loaded.config.hiddenSize,
      vocab: loaded.config.vocabSize,
      contextTokens: loaded.contextTokens,
      adapter: loaded.adapter,
      weights: loaded.weights,
      maxNewTokens: resolved.maxNewTokens,
      settings: resolved,
      shotsBuilt: shots.length,
    };
    const make = (generate: Generate, name: string): LlmPolicy =>
      new LlmPolicy({
        generate,
        tokenizer: loaded.tokenizer,
        shots,
        maxNewTokens: resolved.maxNewTokens,
        contextTokens: loaded.contextTokens,
        thinking: resolved.thinking,
        temperature: resolved.temperature,
        topP: resolved.topP,
        name,
      });
    registerPolicy(
      { name: LLM_POLICY, label: `Qwen (${loaded.label})`, description: `The loaded model ${loaded.label} with Qwen's tool calling, ${describeLlmSettings(resolved)}, on WebGPU (${loaded.adapter}).` },
      () => make(loaded.generate, LLM_POLICY),
    );
    this.makeLlmPolicy = make;
    this.llmInfo = info;
    await this.syncAdapterPolicies();
    return info;
  }

  /** The model held, as the page shows it (null when none). */
  modelInfo(): LoadedModelInfo | null {
    return this.llmInfo;
  }

  /** `count` Oracle transcripts of train questions of `dataset`, played on a SQL executor of their own. */
  private async oracleShots(dataset: string, count: number): Promise<Shot[]> {
    const data = await this.dataset(dataset);
    const executor = this.options.createExecutor();
    try {
      return await buildOracleShots(new SqlEnv(data, executor, this.options.envConfig), selectShotQuestions(data, count));
    } finally {
      await executor.close();
    }
  }

  /** Drops the loaded model and its policy (sessions playing it keep their policy object until reset). */
  unloadModel(): void {
    unregisterPolicy(LLM_POLICY);
    this.makeLlmPolicy = null;
    for (const name of this.adapterPolicies) unregisterPolicy(name);
    this.adapterPolicies.clear();
    this.llm?.destroy();
    this.llm = null;
    this.llmSource = null;
    this.llmInfo = null;
  }

  /** Registers every kept adapter of the loaded model as a policy `qwen+<id>` (and drops the others). */
  private async syncAdapterPolicies(): Promise<void> {
    const sync = ++this.adapterSyncs;
    const infos = await this.adapters.list();
    if (sync !== this.adapterSyncs) return; // a later sync saw a newer list
    for (const name of this.adapterPolicies) unregisterPolicy(name);
    this.adapterPolicies.clear();
    const loaded = this.llm;
    const make = this.makeLlmPolicy;
    if (!loaded?.generateWith || !make) return;
    for (const info of infos.filter((a) => a.baseModel === loaded.label)) {
      // A fresh key per sync: an adapter saved again under its id (a resumed run) is read again.
      const generate = loaded.generateWith({ key: `${info.id}#${sync}`, load: async () => (await this.adapters.load(info.id)).adapter });
      const trained = info.steps !== undefined ? `, ${info.steps} steps` : '';
      registerPolicy({ name: info.policy, label: `Qwen + ${info.name}`, description: `${loaded.label} with the LoRA adapter '${info.name}' (${info.origin}, rank ${info.rank}${trained}), same settings as Qwen.` }, () => make(generate, info.policy));
      this.adapterPolicies.add(info.policy);
    }
  }

  private trainBase(): TrainBase | null {
    const loaded = this.llm;
    const source = this.llmSource;
    if (!loaded || !source) return null;
    const create = this.options.createTrainSession;
    return {
      label: loaded.label,
      config: loaded.config,
      createSession: (request) => {
        if (!create) throw new Error('This environment cannot train models (no WebGPU engine here).');
        return create(source, loaded, request);
      },
    };
  }

  // ---- Training (train-service.ts) and adapters (adapter-library.ts) ----

  /** Runs SFT or GRPO on the loaded model, streaming events; resolves when the run has ended (see train-service.ts). */
  startTraining(request: TrainStartRequest, onEvent: (e: TrainEvent) => void): Promise<void> {
    return this.training.start(request, onEvent);
  }

  pauseTraining(): void {
    this.training.pause();
  }

  resumeTraining(): void {
    this.training.resumeRun();
  }

  stopTraining(): void {
    this.training.stop();
  }

  trainingStatus(): TrainStatus {
    return this.training.status();
  }

  listCheckpoints(): Promise<CheckpointInfo[]> {
    return this.training.listCheckpoints();
  }

  /** Continues a saved run from its checkpoint (same model loaded); resolves when it has ended. */
  resumeFromCheckpoint(id: string, onEvent: (e: TrainEvent) => void): Promise<void> {
    return this.training.resume(id, onEvent);
  }

  deleteCheckpoint(id: string): Promise<void> {
    return this.training.deleteCheckpoint(id);
  }

  trainHistory(runId: string): Promise<TrainRunHistory> {
    return this.training.history(runId);
  }

  listAdapters(): Promise<AdapterInfo[]> {
    return this.adapters.list();
  }

  /** The two PEFT files of an adapter (adapter_model.safetensors, adapter_config.json), for download. */
  adapterFiles(id: string): Promise<PeftAdapterFiles> {
    return this.adapters.files(id);
  }

  private loadedBase(): { label: string; config: ModelConfig } {
    if (!this.llm) throw new RangeError('No model is loaded: load the base model the adapter was trained on first.');
    return { label: this.llm.label, config: this.llm.config };
  }

  /** A PEFT adapter from files, checked against the loaded model (AdapterFileError), kept and played as a policy. */
  async loadAdapterFiles(files: { safetensors: Uint8Array; configJson: string }, name: string): Promise<AdapterInfo> {
    return this.adapters.addPeftFiles(files, name, this.loadedBase());
  }

  /** A PEFT adapter from a Hub repo (cached like models), checked against the loaded model, kept and played. */
  async loadAdapterFromHub(repo: string, options: HubAdapterOptions = {}, onProgress?: (p: DownloadProgress) => void): Promise<AdapterInfo> {
    const base = this.loadedBase();
    const store = this.modelCache() ?? new MemoryFileStore();
    const loaded = await downloadPeftAdapter(repo, { model: base.config, revision: options.revision, base: options.base, subfolder: options.subfolder, store, onProgress });
    return this.adapters.add(loaded.adapter, options.name?.trim() || loaded.label, 'hub', base);
  }

  deleteAdapter(id: string): Promise<void> {
    return this.adapters.delete(id);
  }

  private modelCache(): CacheStorageFileStore | null {
    if (this.options.modelCache !== undefined) return this.options.modelCache;
    return typeof caches === 'undefined' ? null : new CacheStorageFileStore();
  }

  /** Models downloaded from the Hub into this browser's cache, with their sizes ([] where there is no cache). */
  async cachedModels(): Promise<CachedModel[]> {
    return (await this.modelCache()?.list()) ?? [];
  }

  /** Deletes one cached model's files (one revision and mirror when given); returns the files deleted. */
  async clearCachedModel(repo: string, options: { revision?: string; base?: string } = {}): Promise<number> {
    return (await this.modelCache()?.clearModel(repo, options)) ?? 0;
  }

  /** Deletes every cached model file. */
  async clearModelCache(): Promise<void> {
    await this.modelCache()?.clearAll();
  }

  policies(): PolicyInfo[] {
    return listPolicies();
  }

  private session(sessionId: string): Session {
    const session = this.sessions.get(sessionId);
    if (!session) throw new RangeError(`No session '${sessionId}': reset it first.`);
    return session;
  }

  async reset(sessionId: string, dataset: string, options: ResetOptions, policy?: string): Promise<ResetResult> {
    let session = this.sessions.get(sessionId);
    if (!session || session.dataset !== dataset) {
      session = { dataset, env: new SqlEnv(await this.dataset(dataset), this.executor(), this.options.envConfig), first: null, history: [], policy: null, rng: policyRng(0) };
      this.sessions.set(sessionId, session);
    }
    const reset = await session.env.reset(options);
    session.first = reset.observation;
    session.history = [];
    session.rng = policyRng(reset.info.seed);
    session.policy = policy ? createPolicy(policy) : null;
    return reset;
  }

  async step(sessionId: string, action: ActionInput): Promise<StepResult> {
    const session = this.session(sessionId);
    const result = await session.env.step(action);
    session.history.push({ action: result.info.action, observation: result.observation, reward: result.reward });
    return result;
  }

  /** Lets the session's policy choose the next action and plays it (Watch). */
  async policyStep(sessionId: string): Promise<PolicyStep> {
    const session = this.session(sessionId);
    if (!session.policy || !session.first) throw new RangeError(`Session '${sessionId}' has no policy: reset it with one.`);
    const observation = session.history.at(-1)?.observation ?? session.first;
    const decision = await session.policy.act({ first: session.first, history: session.history, observation, question: session.env.currentQuestion(), rng: session.rng });
    const result = await this.step(sessionId, decision.action);
    const step = transcriptStep(result, decision.rawText);
    const stats = (decision as Partial<LlmDecision>).stats;
    if (stats) step.generation = generationRecord(stats);
    // Only what the page shows crosses to it: the action and the raw text (not prompt ids or the parse).
    return { decision: { action: decision.action, ...(decision.rawText !== undefined && { rawText: decision.rawText }) }, result, step };
  }

  async evaluate(request: EvaluationRequest, onProgress?: (done: number, total: number) => void): Promise<EvalReport> {
    const controller = new AbortController();
    this.runs.set(request.runId, controller);
    const executor = this.options.createExecutor();
    try {
      const env = new SqlEnv(await this.dataset(request.dataset), executor, this.options.envConfig);
      return await evaluate(env, createPolicy(request.policy), { episodes: request.episodes, seed: request.seed, split: request.split, onProgress, signal: controller.signal });
    } finally {
      this.runs.delete(request.runId);
      await executor.close();
    }
  }

  cancelEvaluation(runId: string): void {
    this.runs.get(runId)?.abort(new DOMException('Evaluation cancelled', 'AbortError'));
  }

  // ---- Datasets made in the page (the Data view): Spider imports and free play, kept across reloads. ----

  /** Datasets stored in this browser, newest first ([] where nothing can be stored). */
  async storedDatasets(): Promise<StoredDatasetInfo[]> {
    return this.store ? this.store.list() : [];
  }

  /** Registers every stored dataset (after a reload) and returns their summaries, newest first. */
  async restoreStoredDatasets(): Promise<DatasetSummary[]> {
    if (!this.store) return [];
    const summaries: DatasetSummary[] = [];
    for (const info of await this.store.list()) {
      let dataset = this.datasets.get(info.name);
      if (!dataset) {
        const loaded = await this.store.load(info.name).catch(() => null);
        if (!loaded) continue;
        dataset = loaded;
        this.datasets.set(info.name, dataset);
      }
      summaries.push(summarizeDataset(dataset));
    }
    return summaries;
  }

  /** Why `name` cannot name a new dataset (taken by a bundle, a loaded or a stored dataset), or null. */
  async datasetNameProblem(name: string): Promise<string | null> {
    const stored = (await this.storedDatasets().catch(() => [])).map((d) => d.name);
    const bundles = await this.options.bundleNames().catch(() => []);
    return datasetNameProblem(name, [...bundles, ...this.datasets.keys(), ...stored]);
  }

  private async checkNewName(name: string): Promise<void> {
    const problem = await this.datasetNameProblem(name);
    if (problem) throw new DatasetError(problem);
  }

  /** Registers a dataset made in the page and keeps it in the store; a failed save leaves it usable until reload. */
  private async keep(dataset: Dataset, kind: StoredDatasetInfo['kind'], source: string, onProgress?: (done: number, total: number) => void): Promise<MadeDataset> {
    const summary = this.addDataset(dataset);
    if (!this.store) return { summary, stored: null, storageError: 'This browser offers no storage to this page, so the dataset lasts until the page is closed.' };
    try {
      return { summary, stored: await this.store.save(dataset, { kind, source, createdAt: Date.now() }, onProgress), storageError: null };
    } catch (e) {
      return { summary, stored: null, storageError: (e as Error).message };
    }
  }

  /**
   * Imports a Spider folder or zip given as files (Spider's official layout, possibly under one top folder) as the
   * dataset `request.name`, with progress; the dataset is registered and stored. Fails with a DatasetError, changing
   * nothing, when the name is taken or the files are not in Spider's layout; `cancelImport` stops it.
   */
  async importSpiderFiles(request: SpiderImportRequest, onProgress?: (progress: ImportProgress) => void): Promise<SpiderImportOutcome> {
    await this.checkNewName(request.name);
    const controller = new AbortController();
    this.imports.set(request.importId, controller);
    let last = 0;
    const report = (progress: ImportProgress, force = false): void => {
      const now = Date.now();
      if (!force && now - last < PROGRESS_INTERVAL_MS && progress.done < progress.total) return;
      last = now;
      onProgress?.(progress);
    };
    const executor = withQueryTimeout(this.options.createExecutor(), GOLD_TIMEOUT_MS);
    try {
      report({ phase: 'reading', done: 0, total: request.files.length }, true);
      const source = await spiderSourceFromFiles(request.label, request.files);
      const imported = await importSpider(source, executor, { signal: controller.signal, onProgress: (done, total) => report({ phase: 'questions', done, total }) });
      if (imported.dataset.questions.length === 0) {
        throw new DatasetError(`'${source.location}' is in Spider's layout but none of its ${imported.report.questions} questions could be kept (their databases are missing or their gold SQL fails or returns nothing).`);
      }
      controller.signal.throwIfAborted();
      const dataset: Dataset = {
        ...imported.dataset,
        name: request.name,
        description: `Imported in this browser from '${source.location}'. ${imported.dataset.description}`,
      };
      const made = await this.keep(dataset, 'spider', source.location, (done, total) => report({ phase: 'saving', done, total }));
      return { ...made, report: imported.report };
    } finally {
      this.imports.delete(request.importId);
      await executor.close();
    }
  }

  cancelImport(importId: string): void {
    this.imports.get(importId)?.abort(new DOMException('Import cancelled', 'AbortError'));
  }

  /**
   * Opens any SQLite file for free play as the dataset `name` (one database, no questions, no gold answers, so no
   * correctness reward); registered and stored. A file that is not SQLite, is damaged or has no tables gives a
   * DatasetError and changes nothing.
   */
  async openSqliteFile(name: string, file: GivenFile): Promise<MadeDataset> {
    await this.checkNewName(name);
    const bytes = file.data instanceof Uint8Array ? file.data : new Uint8Array(await file.data.arrayBuffer());
    const fileName = file.path.split(/[\\/]/).pop() ?? file.path;
    const executor = this.options.createExecutor();
    try {
      return await this.keep(await buildFreePlayDataset(name, fileName, bytes, executor), 'free-play', fileName);
    } finally {
      await executor.close();
    }
  }

  /** Forgets a dataset made in the page: from the store and from this service. */
  async removeStoredDataset(name: string): Promise<void> {
    await this.store?.remove(name);
    this.removeDataset(name);
    for (const [id, s] of this.sessions) if (s.dataset === name) this.sessions.delete(id);
  }

  async close(): Promise<void> {
    for (const controller of this.runs.values()) controller.abort();
    for (const controller of this.imports.values()) controller.abort();
    this.sessions.clear();
    this.modelLoad?.abort();
    this.training.stop();
    this.unloadModel();
    await this.interactive?.close();
    this.interactive = null;
  }
}
