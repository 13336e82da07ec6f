/**
 * The transformers.js backend's slice: its form (source, dtype, device — persisted, like the Model panel's), the
 * model held by the worker (status, info, load progress, error), and the Engines panel's last comparison, with the
 * named actions that write them: load an ONNX model with transformers.js, cancel the load, apply the Model panel's
 * settings to it, unload it, read it again from the worker, and time both backends on one prompt. Each is one round
 * trip to the environment worker; a load or unload also updates the policy list Watch and Evaluate share
 * (`qwen-tjs`, chosen in Watch when loaded).
 */
import type { StateCreator } from 'zustand';
import { isCancelled } from '../../util/cancelled.ts';
import { callback, envClient } from '../../workers/env-client.ts';
import type { EngineComparison, EngineCompareRequest } from '../../workers/engine-compare.ts';
import type { LlmLoadProgress, LlmSource } from '../../workers/llm-source.ts';
import type { LlmPolicySettings } from '../../workers/llm-settings.ts';
import type { TjsModelInfo } from '../../workers/services/tjs-model-service.ts';
import type { TjsDeviceChoice } from '../../workers/tjs/tjs-backend.ts';
import type { TjsDtypeChoice } from '../../workers/tjs/tjs-layout.ts';
import { errorText } from './datasets-slice.ts';
import type { ModelSourceKind } from './model-form.ts';
import { CANCELLED } from './model-slice.ts';
import type { AppState, Middlewares } from './store.ts';

export interface TjsForm {
  kind: ModelSourceKind;
  repo: string;
  mirror: string;
  url: string;
  dtype: TjsDtypeChoice;
  device: TjsDeviceChoice;
}

export const DEFAULT_TJS_REPO = 'onnx-community/Qwen3-0.6B-ONNX';
export const DEFAULT_TJS_FORM: TjsForm = { kind: 'hub', repo: DEFAULT_TJS_REPO, mirror: 'https://huggingface.co', url: '', dtype: 'auto', device: 'auto' };

export interface TjsSlice {
  tjsForm: TjsForm;
  tjsStatus: 'idle' | 'loading' | 'ready' | 'error';
  tjsInfo: TjsModelInfo | null;
  tjsProgress: LlmLoadProgress | null;
  tjsError: string | null;
  engineStatus: 'idle' | 'running';
  engineComparison: EngineComparison | null;
  engineError: string | null;
  setTjsForm: (patch: Partial<TjsForm>) => void;
  /** Loads `source` as the form's dtype and device asks; ignored while a load runs. A failed load keeps what was held. */
  loadTjsModel: (source: LlmSource, form: TjsForm, settings: LlmPolicySettings) => Promise<void>;
  cancelTjsLoad: () => void;
  applyTjsSettings: (settings: LlmPolicySettings) => Promise<void>;
  unloadTjsModel: () => Promise<void>;
  /** The worker's transformers.js model, read again (a page that mounted after a load, or after the worker restarted). */
  syncTjsModel: () => Promise<void>;
  /** Times both backends on one prompt (ignored while a comparison runs); the table is cleared while measuring. */
  runEngineComparison: (request: EngineCompareRequest) => Promise<void>;
}

export const createTjsSlice: StateCreator<AppState, Middlewares, [], TjsSlice> = (set, get) => ({
  tjsForm: DEFAULT_TJS_FORM,
  tjsStatus: 'idle',
  tjsInfo: null,
  tjsProgress: null,
  tjsError: null,
  engineStatus: 'idle',
  engineComparison: null,
  engineError: null,
  setTjsForm: (patch) => set((s) => ({ tjsForm: { ...DEFAULT_TJS_FORM, ...s.tjsForm, ...patch } })),

  loadTjsModel: async (source, form, settings) => {
    if (get().tjsStatus === 'loading') return;
    set({ tjsStatus: 'loading', tjsError: null, tjsProgress: null });
    try {
      const info = await envClient().loadTjsModel(
        { source, dtype: form.dtype, device: form.device, settings },
        callback((p: LlmLoadProgress) => set({ tjsProgress: p })),
      );
      await get().refreshPolicies(info.policy);
      set({ tjsStatus: 'ready', tjsInfo: info, tjsProgress: null });
    } catch (e) {
      const held = await envClient()
        .tjsModelInfo()
        .catch(() => null);
      set({
        tjsStatus: held ? 'ready' : isCancelled(e) ? 'idle' : 'error',
        tjsInfo: held,
        tjsProgress: null,
        tjsError: isCancelled(e) ? `${CANCELLED} A Hub download keeps the bytes it received, so loading again resumes it.` : errorText(e),
      });
    }
  },

  cancelTjsLoad: () => void envClient().cancelTjsLoad(),

  applyTjsSettings: async (settings) => {
    try {
      set({ tjsInfo: await envClient().setTjsSettings(settings), tjsError: null });
      await get().refreshPolicies();
    } catch (e) {
      set({ tjsError: errorText(e) });
    }
  },

  unloadTjsModel: async () => {
    await envClient().unloadTjsModel();
    set({ tjsStatus: 'idle', tjsInfo: null, tjsProgress: null, tjsError: null, engineComparison: null });
    await get().refreshPolicies();
  },

  syncTjsModel: async () => {
    if (get().tjsStatus === 'loading') return;
    const info = await envClient().tjsModelInfo();
    set({ tjsInfo: info, tjsStatus: info ? 'ready' : get().tjsStatus === 'error' ? 'error' : 'idle' });
  },

  runEngineComparison: async (request) => {
    if (get().engineStatus === 'running') return;
    set({ engineStatus: 'running', engineError: null, engineComparison: null }); // no stale table while measuring
    try {
      set({ engineComparison: await envClient().compareEngines(request) });
    } catch (e) {
      set({ engineError: errorText(e) });
    } finally {
      set({ engineStatus: 'idle' });
    }
  },
});

export const persistedTjs = (s: AppState): Pick<TjsSlice, 'tjsForm'> => ({ tjsForm: s.tjsForm });
