/**
 * The transformers.js backend's slice: its form (source, dtype, device — persisted, like the Model panel's), the
 * model held by the worker (status, info, load progress, error), and the Engines panel's last comparison. Written by
 * the named actions in ui/watch/tjs-actions.ts only.
 */
import type { StateCreator } from 'zustand';
import type { EngineComparison } from '../../workers/engine-compare.ts';
import type { LlmLoadProgress } from '../../workers/llm-generate.ts';
import type { TjsModelInfo } from '../../workers/services/tjs-model-service.ts';
import type { TjsDeviceChoice } from '../../workers/tjs/tjs-backend.ts';
import type { TjsDtypeChoice } from '../../workers/tjs/tjs-layout.ts';
import type { ModelSourceKind } from './model-form.ts';
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
}

export const createTjsSlice: StateCreator<AppState, Middlewares, [], TjsSlice> = (set) => ({
  tjsForm: DEFAULT_TJS_FORM,
  tjsStatus: 'idle',
  tjsInfo: null,
  tjsProgress: null,
  tjsError: null,
  engineStatus: 'idle',
  engineComparison: null,
  engineError: null,
  setTjsForm: (patch) => set((s) => ({ tjsForm: { ...DEFAULT_TJS_FORM, ...s.tjsForm, ...patch } })),
});

export const persistedTjs = (s: AppState): Pick<TjsSlice, 'tjsForm'> => ({ tjsForm: s.tjsForm });
