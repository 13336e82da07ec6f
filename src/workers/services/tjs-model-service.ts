/**
 * The transformers.js model a host holds (the second Qwen backend, tjs/tjs-generate.ts), and the policy `qwen-tjs`
 * it plays as, beside the WebGPU engine's `qwen` (model-service.ts): both may be loaded at once, so Watch, Evaluate
 * and Compare can set their transcripts side by side and the Engines panel can time one against the other. The
 * policy is the engine's `LlmPolicy` — same prompts, shots, parser, tool protocol and settings — on this backend's
 * `generate`. Inference only: training needs the WebGPU engine.
 */
import type { Dataset } from '../../data/types.ts';
import type { EnvConfig } from '../../env/types.ts';
import { createLlmPolicy } from '../../policies/llm/llm-policy.ts';
import type { PolicyRegistry } from '../../policies/registry.ts';
import type { SqlExecutor } from '../../sql/executor.ts';
import type { LlmLoadProgress, LlmSource } from '../llm-generate.ts';
import { describeLlmSettings, resolveLlmSettings, type LlmPolicySettings, type ResolvedLlmSettings } from '../llm-settings.ts';
import type { TjsDeviceChoice } from '../tjs/tjs-backend.ts';
import type { LoadedTjs, TjsLoadOptions } from '../tjs/tjs-generate.ts';
import type { TjsDevice, TjsDtype, TjsDtypeChoice } from '../tjs/tjs-layout.ts';
import { CancellableLoad, oracleShots } from './model-load.ts';
import { throttleProgress } from './progress.ts';

/** The policy name the transformers.js model plays under. */
export const TJS_POLICY = 'qwen-tjs';

export type LoadTjs = (source: LlmSource, options: TjsLoadOptions, onProgress: (p: LlmLoadProgress) => void) => Promise<LoadedTjs>;

/** What the page asks for: where from, which variant, which device, and the policy's settings. */
export interface TjsLoadRequest {
  source: LlmSource;
  dtype: TjsDtypeChoice;
  device: TjsDeviceChoice;
  settings?: LlmPolicySettings;
}

/** The transformers.js model held, as the page shows it. */
export interface TjsModelInfo {
  policy: string;
  label: string;
  architecture: string;
  layers: number;
  hidden: number;
  device: TjsDevice;
  dtype: TjsDtype;
  contextTokens: number;
  settings: ResolvedLlmSettings;
  shotsBuilt: number;
}

export interface TjsModelServiceDeps {
  policies: PolicyRegistry;
  dataset: (name: string) => Promise<Dataset>;
  createExecutor: () => SqlExecutor;
  envConfig?: Partial<EnvConfig>;
  /** Absent where transformers.js cannot run (Node hosts): loading then rejects. */
  loadTjs?: LoadTjs;
}

export class TjsModelService {
  private model: LoadedTjs | null = null;
  private info: TjsModelInfo | null = null;
  private readonly load = new CancellableLoad();

  constructor(private readonly deps: TjsModelServiceDeps) {}

  loaded(): LoadedTjs | null {
    return this.model;
  }

  tjsModelInfo(): TjsModelInfo | null {
    return this.info;
  }

  /** Loads (replacing the model held) and registers `qwen-tjs`; a load in progress is cancelled first. */
  async loadTjsModel(request: TjsLoadRequest, onProgress?: (p: LlmLoadProgress) => void): Promise<TjsModelInfo> {
    if (!this.deps.loadTjs) throw new Error('This environment cannot run transformers.js models.');
    const settings = resolveLlmSettings(request.settings);
    const loadTjs = this.deps.loadTjs;
    const report = throttleProgress(onProgress, (p: LlmLoadProgress) => p.phase === 'download' && p.loaded < p.total);
    const model = await this.load.run((signal) => loadTjs(request.source, { dtype: request.dtype, device: request.device, signal }, (p) => report(p)));
    this.unloadTjsModel();
    this.model = model;
    return this.setTjsSettings(settings);
  }

  cancelTjsLoad(): void {
    this.load.cancel();
  }

  /** Re-registers `qwen-tjs` with new settings (the next episode on); no reload. */
  async setTjsSettings(settings: LlmPolicySettings): Promise<TjsModelInfo> {
    const model = this.model;
    if (!model) throw new RangeError('No transformers.js model is loaded: load one first.');
    const resolved = resolveLlmSettings(settings);
    const shots = resolved.shots > 0 ? await oracleShots(this.deps, resolved.shotDataset, resolved.shots) : [];
    if (this.model !== model) throw new RangeError('The model changed while its settings were applied.');
    this.deps.policies.register(
      {
        name: TJS_POLICY,
        label: `Qwen (transformers.js, ${model.label})`,
        description: `The ONNX model ${model.label} run by transformers.js on ${model.device === 'webgpu' ? 'WebGPU' : 'WASM (CPU)'}, ${model.dtype}, with the same prompts and tool calling as the WebGPU engine, ${describeLlmSettings(resolved).replace(/, [a-z0-9]+ weights$/, '')}.`,
      },
      // concurrency 1: tjs-generate.ts runs one generation at a time.
      () => createLlmPolicy(resolved, { generate: model.generate, tokenizer: model.tokenizer, contextTokens: model.contextTokens, concurrency: 1 }, { shots, name: TJS_POLICY }),
    );
    this.info = {
      policy: TJS_POLICY,
      label: model.label,
      architecture: model.config.architecture,
      layers: model.config.numLayers,
      hidden: model.config.hiddenSize,
      device: model.device,
      dtype: model.dtype,
      contextTokens: model.contextTokens,
      settings: resolved,
      shotsBuilt: shots.length,
    };
    return this.info;
  }

  unloadTjsModel(): void {
    this.deps.policies.unregister(TJS_POLICY);
    this.model?.destroy();
    this.model = null;
    this.info = null;
  }

  close(): void {
    this.load.cancel();
    this.unloadTjsModel();
  }
}
