/**
 * Watch's transformers.js panel: loads an ONNX export of Qwen in the onnx-community layout (`onnx/model_q4.onnx`, …
 * with config.json and the tokenizer files) into the second backend — from the Hugging Face Hub (cached in the
 * browser, listed in the Model cache), a folder served with the app, or a local folder — with a dtype among the
 * variants (a picked folder lists the ones it has) and the device (WebGPU when present, else WASM). Its policy
 * "Qwen (transformers.js, …)" plays with the Model panel's settings, so transcripts compare with the engine's.
 * Inference only: training needs the WebGPU engine.
 */
import { useEffect, useState, type InputHTMLAttributes } from 'react';
import { formatBytes } from '../../model/cache.ts';
import { modelRoot, type LocalFile } from '../../model/local-folder.ts';
import type { LlmLoadProgress } from '../../workers/llm-generate.ts';
import { resolveLlmSettings, type LlmPolicySettings } from '../../workers/llm-settings.ts';
import { TJS_DTYPES, variantsIn, type TjsDtype, type TjsDtypeChoice } from '../../workers/tjs/tjs-layout.ts';
import type { TjsDeviceChoice } from '../../workers/tjs/tjs-backend.ts';
import { ErrorBox } from '../components/ErrorBox.tsx';
import { completeModelForm, type ModelSourceKind } from '../store/model-form.ts';
import { useStore } from '../store/store.ts';
import { DEFAULT_TJS_FORM } from '../store/tjs-slice.ts';
import { CANCELLED } from '../store/model-slice.ts';
import { tjsFormSource } from './tjs-actions.ts';

const DIRECTORY_INPUT = { webkitdirectory: '', directory: '' } as InputHTMLAttributes<HTMLInputElement>;

const DTYPE_LABELS: Record<TjsDtype, string> = {
  q4: 'q4 (4-bit)',
  q4f16: 'q4f16 (4-bit, f16 activations; WebGPU with f16)',
  q8: 'q8 (8-bit)',
  int8: 'int8',
  uint8: 'uint8',
  fp16: 'fp16',
  fp32: 'fp32 (full precision)',
  bnb4: 'bnb4',
};

function progressText(p: LlmLoadProgress): string {
  if (p.phase === 'download') return `Reading ${p.file ?? ''}: ${formatBytes(p.loaded)} of ${formatBytes(p.total)}`;
  if (p.phase === 'tokenizer') return 'Building the tokenizer…';
  if (p.phase === 'ready') return 'Ready.';
  return p.message ?? 'Starting ONNX Runtime…';
}

/** The dtypes a picked folder has (null: not a picked folder, every dtype is offered). */
function pickedDtypes(files: readonly LocalFile[]): TjsDtype[] | null {
  if (files.length === 0) return null;
  try {
    return variantsIn(new Set(modelRoot(files).byName.keys())).map((v) => v.dtype);
  } catch {
    return [];
  }
}

export function TjsPanel({ webGpu }: { webGpu: boolean | null }) {
  const status = useStore((s) => s.tjsStatus);
  const info = useStore((s) => s.tjsInfo);
  const progress = useStore((s) => s.tjsProgress);
  const error = useStore((s) => s.tjsError);
  const form = { ...DEFAULT_TJS_FORM, ...useStore((s) => s.tjsForm) };
  const setForm = useStore((s) => s.setTjsForm);
  const loadTjsModel = useStore((s) => s.loadTjsModel);
  const cancelTjsLoad = useStore((s) => s.cancelTjsLoad);
  const applyTjsSettings = useStore((s) => s.applyTjsSettings);
  const unloadTjsModel = useStore((s) => s.unloadTjsModel);
  const syncTjsModel = useStore((s) => s.syncTjsModel);
  const modelSettings = completeModelForm(useStore((s) => s.modelForm)).settings;
  const dataset = useStore((s) => s.dataset);
  const [files, setFiles] = useState<LocalFile[]>([]);
  const loading = status === 'loading';

  useEffect(() => {
    void syncTjsModel();
  }, [syncTjsModel]);

  const settings: LlmPolicySettings = { ...modelSettings, shotDataset: dataset };
  let settingsProblem: string | null = null;
  try {
    resolveLlmSettings(settings);
  } catch (e) {
    settingsProblem = (e as Error).message;
  }
  const source = tjsFormSource(form, files);
  const present = form.kind === 'folder' ? pickedDtypes(files) : null;
  const dtypes = present ?? [...TJS_DTYPES];

  return (
    <form
      id="tjs-panel"
      className="panel watch-setup model-panel"
      aria-label="transformers.js (ONNX)"
      onSubmit={(e) => {
        e.preventDefault();
        if (source && settingsProblem === null) void loadTjsModel(source, form, settings);
      }}
    >
      <h3>transformers.js (ONNX)</h3>
      <p className="meta">
        A second backend: ONNX exports in the onnx-community layout, run by transformers.js on {webGpu === false ? 'WASM (this browser has no WebGPU)' : 'WebGPU, or WASM where there is none'}. Inference only: training
        needs WebGPU. It plays with the settings of the Model panel above.
      </p>
      <label className="field">
        Source
        <select value={form.kind} onChange={(e) => setForm({ kind: e.target.value as ModelSourceKind })} disabled={loading}>
          <option value="hub">Hugging Face Hub id</option>
          <option value="url">Folder served with the app (URL or path)</option>
          <option value="folder">Local folder on this computer</option>
        </select>
      </label>
      {form.kind === 'hub' && (
        <>
          <label className="field">
            ONNX Hub id
            <input type="text" value={form.repo} spellCheck={false} autoComplete="off" placeholder={DEFAULT_TJS_FORM.repo} disabled={loading} onChange={(e) => setForm({ repo: e.target.value })} />
          </label>
          <label className="field">
            ONNX mirror (base URL)
            <input type="url" value={form.mirror} spellCheck={false} autoComplete="off" disabled={loading} onChange={(e) => setForm({ mirror: e.target.value })} />
          </label>
        </>
      )}
      {form.kind === 'url' && (
        <label className="field">
          ONNX folder URL
          <input type="text" value={form.url} spellCheck={false} autoComplete="off" placeholder="models/qwen3-onnx/" disabled={loading} onChange={(e) => setForm({ url: e.target.value })} />
        </label>
      )}
      {form.kind === 'folder' && (
        <label className="field">
          ONNX model folder
          <input type="file" multiple {...DIRECTORY_INPUT} disabled={loading} onChange={(e) => setFiles([...(e.target.files ?? [])].map((f) => ({ path: f.webkitRelativePath || f.name, data: f })))} />
          <span className="meta">
            {present === null ? 'Pick the folder holding config.json, the tokenizer files and onnx/model_*.onnx.' : present.length === 0 ? 'No onnx/model*.onnx in this folder.' : `Variants here: ${present.join(', ')}.`}
          </span>
        </label>
      )}
      <label className="field">
        ONNX dtype
        <select value={form.dtype} disabled={loading} onChange={(e) => setForm({ dtype: e.target.value as TjsDtypeChoice })}>
          <option value="auto">Automatic (q4 on WASM; q4f16 on WebGPU with f16)</option>
          {dtypes.map((d) => (
            <option key={d} value={d}>
              {DTYPE_LABELS[d]}
            </option>
          ))}
        </select>
      </label>
      <label className="field">
        Device
        <select value={form.device} disabled={loading} onChange={(e) => setForm({ device: e.target.value as TjsDeviceChoice })}>
          <option value="auto">Automatic (WebGPU when present, else WASM)</option>
          <option value="wasm">WASM (CPU)</option>
        </select>
      </label>
      {settingsProblem !== null && <p className="step-error">{settingsProblem}</p>}
      <div className="button-row">
        <button type="submit" disabled={loading || source === null || settingsProblem !== null}>
          {loading ? 'Loading…' : 'Load with transformers.js'}
        </button>
        {loading && (
          <button type="button" onClick={cancelTjsLoad}>
            Cancel
          </button>
        )}
        {status === 'ready' && info && (
          <button type="button" disabled={settingsProblem !== null} onClick={() => void applyTjsSettings(settings)}>
            Apply settings
          </button>
        )}
        {status === 'ready' && info && (
          <button type="button" onClick={() => void unloadTjsModel()}>
            Unload
          </button>
        )}
      </div>
      {loading && progress && (
        <div role="status" aria-label="transformers.js loading">
          {progress.phase === 'download' && <progress max={Math.max(progress.total, 1)} value={progress.loaded} />}
          <p className="meta">{progressText(progress)}</p>
        </div>
      )}
      {status === 'ready' && info && (
        <p className="meta" role="status" aria-label="transformers.js ready">
          Loaded {info.label} with transformers.js: {info.architecture}, {info.layers} layers, hidden {info.hidden}, {info.dtype}, on {info.device === 'webgpu' ? 'WebGPU' : 'WASM (CPU)'}, context {info.contextTokens}. Policy:
          Qwen (transformers.js) — {info.settings.shots === 0 ? 'zero-shot' : `${info.shotsBuilt}-shot`}, {info.settings.temperature === 0 ? 'greedy' : `temperature ${info.settings.temperature}`}, at most{' '}
          {info.settings.maxNewTokens} new tokens a turn.
        </p>
      )}
      {error !== null && <ErrorBox title={error.startsWith(CANCELLED) ? 'Loading cancelled' : 'The ONNX model could not be loaded'} message={error} />}
    </form>
  );
}
