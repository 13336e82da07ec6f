/**
 * The language model a host holds, and the policy `qwen` it plays as. `loadModel` loads one (the WebGPU engine in
 * the worker; absent in Node tests and hosts that cannot run models) and registers `qwen` in the host's
 * `PolicyRegistry`; `setModelSettings` re-registers it with new settings (shots, thinking, sampling, token limit);
 * `unloadModel` drops both. Listeners (the adapter service) hear of each change, so policies built on the model
 * (`qwen+<id>`) follow it with the same settings.
 *
 * Training reads the held model through `trainBase` (train-service.ts makes a trainable copy of it per run).
 */
import type { Dataset } from '../../data/types.ts';
import type { EnvConfig } from '../../env/types.ts';
import { createLlmPolicy, type Generate, type LlmPolicy } from '../../policies/llm/llm-policy.ts';
import type { PolicyRegistry } from '../../policies/registry.ts';
import type { SqlExecutor } from '../../sql/executor.ts';
import type { LoadedModelInfo } from '../env-protocol.ts';
import type { LlmLoadOptions, LlmLoadProgress, LlmSource, LoadedLlm } from '../llm-generate.ts';
import { describeLlmSettings, resolveLlmSettings, type LlmPolicySettings } from '../llm-settings.ts';
import type { TrainBase, TrainModelRequest, TrainSession } from '../train-service.ts';
import { CancellableLoad, oracleShots } from './model-load.ts';
import { throttleProgress } from './progress.ts';

/** The policy name a loaded model plays under. */
export const LLM_POLICY = 'qwen';

/** Loads a language model: the WebGPU engine in the worker, a fake or the f64 reference in tests. */
export type LoadLlm = (source: LlmSource, onProgress: (p: LlmLoadProgress) => void, options: LlmLoadOptions) => Promise<LoadedLlm>;

/** A trainable copy of the loaded model for a run (the WebGPU trainer in the worker; the f64 reference in tests). */
export type CreateTrainSession = (source: LlmSource, loaded: LoadedLlm, request: TrainModelRequest) => Promise<TrainSession>;

/** Makes the held model's policy, with the current settings, on a given generate (the base's or an adapter's). */
export type LlmPolicyMaker = (generate: Generate, name: string) => LlmPolicy;

export interface ModelServiceDeps {
  policies: PolicyRegistry;
  /** Datasets for few-shot prompts (Oracle transcripts of train questions). */
  dataset: (name: string) => Promise<Dataset>;
  /** Makes a SQL executor to play the shots on; closed after. */
  createExecutor: () => SqlExecutor;
  envConfig?: Partial<EnvConfig>;
  /** Absent where no model can run: `loadModel` then rejects. */
  loadLlm?: LoadLlm;
  /** Absent where no model can be trained: a run then fails when it makes its model. */
  createTrainSession?: CreateTrainSession;
}

/** Hears of changes to the held model's policy. */
export interface ModelListener {
  /** The model's policy was registered anew (a load, new settings); awaited before the change is reported. */
  changed(): Promise<void>;
  /** The model was dropped: policies built on it must go now. */
  dropped(): void;
}

export class ModelService {
  private llm: LoadedLlm | null = null;
  private llmSource: LlmSource | null = null;
  private llmInfo: LoadedModelInfo | null = null;
  private makePolicy: LlmPolicyMaker | null = null;
  private readonly modelLoad = new CancellableLoad();
  private readonly listeners: ModelListener[] = [];

  constructor(private readonly deps: ModelServiceDeps) {}

  listen(listener: ModelListener): void {
    this.listeners.push(listener);
  }

  /** The model held (null when none). */
  loaded(): LoadedLlm | null {
    return this.llm;
  }

  /** Makes the held model's policy with its current settings; null until settings are applied, and after unload. */
  policyMaker(): LlmPolicyMaker | null {
    return this.makePolicy;
  }

  /**
   * Loads a language model (replacing the one held) and registers it as the policy `qwen`, which Watch and
   * Evaluate then list. Progress is reported as files download, then tokenizer, weights and GPU upload; later the
   * same callback hears of device-loss recoveries. Settings are checked first (LlmSettingsError); a load already
   * running is cancelled; `cancelModelLoad` stops this one (a CancelledError), keeping the model held before.
   */
  async loadModel(source: LlmSource, settings: LlmPolicySettings = {}, onProgress?: (p: LlmLoadProgress) => void): Promise<LoadedModelInfo> {
    if (!this.deps.loadLlm) throw new Error('This environment cannot run language models (no WebGPU engine here).');
    const resolved = resolveLlmSettings(settings);
    const load = this.deps.loadLlm;
    const report = throttleProgress(onProgress, (p: LlmLoadProgress) => p.phase === 'download' && p.loaded < p.total);
    const loaded = await this.modelLoad.run((signal) => load(source, (p) => report(p), { weights: resolved.weights, signal }));
    this.unloadModel();
    this.llm = loaded;
    this.llmSource = source;
    return this.setModelSettings(resolved);
  }

  /** Stops a model load in progress (a Hub download keeps its bytes and resumes next time). */
  cancelModelLoad(): void {
    this.modelLoad.cancel();
  }

  /**
   * Re-registers the loaded model's policy with new settings (thinking, shots, sampling, token limit), without
   * reloading; sessions pick them up at their next reset. A new weight format needs `loadModel`.
   */
  async setModelSettings(settings: LlmPolicySettings): Promise<LoadedModelInfo> {
    const loaded = this.llm;
    if (!loaded) throw new RangeError('No model is loaded: load one first.');
    const resolved = resolveLlmSettings({ ...settings, weights: loaded.weights });
    const shots = resolved.shots > 0 ? await oracleShots(this.deps, resolved.shotDataset, resolved.shots) : [];
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
      testModel: loaded.testModel ?? null,
    };
    const make: LlmPolicyMaker = (generate, name) =>
      createLlmPolicy(resolved, { generate, tokenizer: loaded.tokenizer, contextTokens: loaded.contextTokens, concurrency: loaded.slots ?? 1 }, { shots, name });
    this.deps.policies.register(
      { name: LLM_POLICY, label: `Qwen (${loaded.label})`, description: `The loaded model ${loaded.label} with Qwen's tool calling, ${describeLlmSettings(resolved)}, on WebGPU (${loaded.adapter}).` },
      () => make(loaded.generate, LLM_POLICY),
    );
    this.makePolicy = make;
    this.llmInfo = info;
    for (const listener of this.listeners) await listener.changed();
    return info;
  }

  /** The model held, as the page shows it (null when none). */
  modelInfo(): LoadedModelInfo | null {
    return this.llmInfo;
  }

  /** Drops the loaded model and its policies (sessions playing it keep their policy object until reset). */
  unloadModel(): void {
    this.deps.policies.unregister(LLM_POLICY);
    this.makePolicy = null;
    for (const listener of this.listeners) listener.dropped();
    this.llm?.destroy();
    this.llm = null;
    this.llmSource = null;
    this.llmInfo = null;
  }

  /** The held model as training sees it (null when none is held). */
  trainBase(): TrainBase | null {
    const loaded = this.llm;
    const source = this.llmSource;
    if (!loaded || !source) return null;
    const create = this.deps.createTrainSession;
    return {
      label: loaded.label,
      config: loaded.config,
      source,
      ...(this.llmInfo && { settings: this.llmInfo.settings }),
      createSession: (request) => {
        if (!create) throw new Error('This environment cannot train models (no WebGPU engine here).');
        return create(source, loaded, request);
      },
    };
  }

  /** Stops a load in progress and drops the model held. */
  close(): void {
    this.modelLoad.cancel();
    this.unloadModel();
  }
}
