/**
 * The language model the worker holds (its policy is `qwen`) and the Model panel's named actions: load a model with
 * its settings, cancel a load, apply new settings to the loaded model, unload it. Each is one round trip to the
 * environment worker; the results land here (`modelStatus`, `modelInfo`, `modelProgress`, `modelError`) and in the
 * policy list Watch and Evaluate share (`refreshPolicies`, watch-slice.ts), so the two views see a model come and go
 * at once. A chosen policy survives new settings while it is still listed: Apply settings never turns
 * "Qwen + adapter" into plain "Qwen". One that went away with its model (an unload, a page reload) is awaited by
 * Watch and chosen again when a load lists it, so loading the model again after a reload brings the adapter back.
 *
 * The progress callback given to `loadModel` stays live after the load: the worker reports a device-loss recovery
 * through it ('recovering', 'recovered'), which the panel shows as a notice. The panel's form (source and settings,
 * never the weights) and the model loaded last persist (model-form.ts).
 */
import type { StateCreator } from 'zustand';
import { isCancelled } from '../../util/cancelled.ts';
import { callback, envClient } from '../../workers/env-client.ts';
import type { LoadedModelInfo } from '../../workers/env-protocol.ts';
import type { LlmLoadProgress, LlmSource } from '../../workers/llm-source.ts';
import type { LlmPolicySettings } from '../../workers/llm-settings.ts';
import { errorText } from './datasets-slice.ts';
import { completeModelForm, DEFAULT_MODEL_FORM, type LastModel, type ModelForm, type ModelSourceKind } from './model-form.ts';
import type { AppState, Middlewares } from './store.ts';

/** How the message of a cancelled load starts (the Model and transformers.js panels title such an error apart). */
export const CANCELLED = 'Loading was cancelled.';

export interface ModelSlice {
  modelInfo: LoadedModelInfo | null;
  modelStatus: 'idle' | 'loading' | 'ready' | 'error';
  modelProgress: LlmLoadProgress | null;
  modelError: string | null;
  /** The Model panel's form (persisted). */
  modelForm: ModelForm;
  /** The model loaded last, until unloaded (persisted, so the panel offers to load it again after a reload). */
  lastModel: LastModel | null;
  setModelForm: (patch: Partial<ModelForm>) => void;
  /**
   * Loads `source` with `settings`; on success its policy is listed and chosen in Watch. A cancelled or failed load
   * leaves the model held before (if any) in place, with the reason shown. Ignored while a load runs.
   */
  loadModelWithSettings: (source: LlmSource, settings: LlmPolicySettings) => Promise<void>;
  /** Stops the load in progress (the worker keeps a Hub download's partial bytes). */
  cancelModelLoad: () => void;
  /** New prompting and sampling settings for the loaded model, without reloading it (next episode onwards). */
  applyModelSettings: (settings: LlmPolicySettings) => Promise<void>;
  /** Drops the model from the worker and the GPU; Watch and Evaluate fall back to Oracle if they had chosen it. */
  unloadModel: () => Promise<void>;
}

/** The kind of form source an `LlmSource` came from. */
function sourceKind(source: LlmSource): ModelSourceKind {
  return source.kind === 'files' ? 'folder' : source.kind;
}

export const createModelSlice: StateCreator<AppState, Middlewares, [], ModelSlice> = (set, get) => ({
  modelInfo: null,
  modelStatus: 'idle',
  modelProgress: null,
  modelError: null,
  modelForm: DEFAULT_MODEL_FORM,
  lastModel: null,

  setModelForm: (patch) => set((s) => ({ modelForm: completeModelForm({ ...s.modelForm, ...patch }) })),

  loadModelWithSettings: async (source, settings) => {
    const state = get();
    if (state.modelStatus === 'loading') return;
    const before = state.modelInfo;
    set({ modelStatus: 'loading', modelError: null, modelProgress: null });
    try {
      const info = await envClient().loadModel(
        source,
        settings,
        callback((p: LlmLoadProgress) => set({ modelProgress: p })),
      );
      await get().refreshPolicies(info.policy);
      set({ modelStatus: 'ready', modelInfo: info, modelError: null, lastModel: { kind: sourceKind(source), label: info.label } });
    } catch (e) {
      const held = await envClient()
        .modelInfo()
        .catch(() => before);
      set({
        modelStatus: held ? 'ready' : isCancelled(e) ? 'idle' : 'error',
        modelInfo: held,
        modelProgress: null,
        modelError: isCancelled(e) ? `${CANCELLED} ${held ? `${held.label} is still loaded. ` : ''}A Hub download keeps the bytes it received, so loading again resumes it.` : errorText(e),
      });
    }
  },

  cancelModelLoad: () => void envClient().cancelModelLoad(),

  applyModelSettings: async (settings) => {
    try {
      set({ modelStatus: 'ready', modelInfo: await envClient().setModelSettings(settings), modelError: null });
      await get().refreshPolicies();
    } catch (e) {
      set({ modelError: errorText(e) });
    }
  },

  unloadModel: async () => {
    await envClient().unloadModel();
    set({ modelStatus: 'idle', modelInfo: null, modelProgress: null, modelError: null, lastModel: null });
    await get().refreshPolicies();
  },
});

/** The part of this slice that persists across reloads: the panel's form and the model loaded last; never weights. */
export const persistedModel = (s: AppState): Pick<ModelSlice, 'modelForm' | 'lastModel'> => ({ modelForm: s.modelForm, lastModel: s.lastModel });
