/**
 * The Model panel's form as the store keeps it (and persists it across reloads): where the model comes from (a Hub
 * id with its mirror, a folder URL, or a local folder, whose files are never kept) and its settings. The weights are
 * never kept: after a reload the form is back and one click loads a Hub or URL model again; a local folder must be
 * picked again (the browser does not let a page reopen it).
 *
 * `lastModel` remembers what was loaded before a reload, so the panel can offer to load it again (never unasked).
 */
import { DEFAULT_DECODE_WEIGHTS, type WeightFormat } from '../../gpu/quant.ts';
import { DEFAULT_MODEL } from '../../model/registry.ts';
import type { LocalFile } from '../../model/local-folder.ts';
import { samplingDefaults } from '../../policies/llm/sampling-defaults.ts';
import type { LlmSource } from '../../workers/llm-generate.ts';
import type { ShotCount } from '../../workers/llm-settings.ts';

export type ModelSourceKind = 'hub' | 'url' | 'folder';

/** The panel's settings: every field set (the worker checks them again). */
export interface ModelSettingsForm {
  thinking: boolean;
  shots: ShotCount;
  temperature: number;
  topP: number;
  maxNewTokens: number;
  weights: WeightFormat;
}

export interface ModelForm {
  kind: ModelSourceKind;
  /** Hub id (kind 'hub'). */
  repo: string;
  /** Mirror of the Hub (base URL), kind 'hub'. */
  mirror: string;
  /** Folder served with the app, URL or path (kind 'url'). */
  url: string;
  settings: ModelSettingsForm;
}

/** The model loaded last (cleared on unload): its source kind and label, shown after a reload. */
export interface LastModel {
  kind: ModelSourceKind;
  label: string;
}

export const DEFAULT_MIRROR = 'https://huggingface.co';

export const DEFAULT_MODEL_SETTINGS: ModelSettingsForm = { thinking: false, shots: 0, ...samplingDefaults(false), weights: DEFAULT_DECODE_WEIGHTS };

export const DEFAULT_MODEL_FORM: ModelForm = { kind: 'hub', repo: DEFAULT_MODEL.repo, mirror: DEFAULT_MIRROR, url: '', settings: DEFAULT_MODEL_SETTINGS };

/** The form with every field present: a form saved by an older build (or none) is completed with the defaults. */
export function completeModelForm(saved: Partial<ModelForm> | null | undefined): ModelForm {
  const form = { ...DEFAULT_MODEL_FORM, ...saved };
  return { ...form, settings: { ...DEFAULT_MODEL_SETTINGS, ...saved?.settings } };
}

/** The source the form names (`files`: the local folder's files, picked in this page); null when it names none. */
export function modelFormSource(form: ModelForm, files: readonly LocalFile[]): LlmSource | null {
  switch (form.kind) {
    case 'folder':
      return files.length > 0 ? { kind: 'files', files: [...files] } : null;
    case 'url': {
      const url = form.url.trim();
      return url === '' ? null : { kind: 'url', url };
    }
    case 'hub': {
      const repo = form.repo.trim();
      const base = form.mirror.trim();
      return repo === '' ? null : { kind: 'hub', repo, ...(base !== '' && base !== DEFAULT_MIRROR && { base }) };
    }
    default:
      return form.kind satisfies never;
  }
}
