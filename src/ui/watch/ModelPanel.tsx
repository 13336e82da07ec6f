/**
 * The Model panel of Watch: load a Qwen checkpoint into the environment worker — a Hugging Face Hub id (through a
 * mirror if set, cached in the browser), a folder served with the app (URL or path), or a local folder the user picks
 * (read into memory, never cached) — with its settings (ModelSettings.tsx), download and load progress, Cancel while
 * loading, Unload and Apply settings once loaded, and the browser's model cache (ModelCache.tsx). Errors are shown
 * as the worker words them (no WebGPU adapter, a missing file, a corrupt header, an unsupported architecture, a full
 * cache), and a GPU device-loss recovery as a notice. Once loaded, its policy ("Qwen (…)") is listed in Watch and
 * Evaluate.
 *
 * Under the source fields, the "Get a model" note of the chosen source (src/ui/help/GetModelGuide.tsx): a Hub
 * model's download size and time before the download starts, how a folder comes to be served (`npm run model:tiny`),
 * what a local folder must hold. A model with random test weights says so once loaded (components/TestModelNotice.tsx).
 *
 * The form (source and settings) lives in the store and persists across reloads; the weights do not. After a reload
 * the panel says which model was loaded before and loads a Hub or URL model again in one click (never unasked); a
 * local folder must be picked again.
 */
import { useId, useState, type InputHTMLAttributes } from 'react';
import { formatBytes } from '../../model/cache.ts';
import type { LocalFile } from '../../model/local-folder.ts';
import { DEFAULT_MODEL, MODEL_REGISTRY } from '../../model/registry.ts';
import type { LlmLoadProgress } from '../../workers/llm-generate.ts';
import { resolveLlmSettings, type LlmPolicySettings } from '../../workers/llm-settings.ts';
import { ErrorBox } from '../components/ErrorBox.tsx';
import { TestModelNotice } from '../components/TestModelNotice.tsx';
import { HubDownloadNote, LocalFolderNote, ServedFolderNote, TINY_MODEL_URL } from '../help/GetModelGuide.tsx';
import { routeHash } from '../router.ts';
import { completeModelForm, modelFormSource, type ModelSourceKind } from '../store/model-form.ts';
import { CANCELLED } from '../store/model-slice.ts';
import { useStore } from '../store/store.ts';
import { ModelCache } from './ModelCache.tsx';
import { ModelSettings } from './ModelSettings.tsx';
import './model-panel.css';

/** `webkitdirectory` (every Chromium and Firefox) is not in React's input attributes. */
const DIRECTORY_INPUT = { webkitdirectory: '', directory: '' } as InputHTMLAttributes<HTMLInputElement>;

function progressText(p: LlmLoadProgress): string {
  switch (p.phase) {
    case 'download':
      return `Reading ${p.file ?? ''}: ${formatBytes(p.loaded)} of ${formatBytes(p.total)}`;
    case 'tokenizer':
      return 'Building the tokenizer…';
    case 'weights':
      return 'Reading the weights…';
    case 'gpu':
      return 'Uploading the weights to the GPU…';
    case 'ready':
      return 'Ready.';
    case 'recovering':
    case 'recovered':
      return p.message ?? 'Recovering from a lost GPU device…';
  }
}

/** The picked folder's files with their paths inside the pick. */
function pickedFiles(list: FileList | null): LocalFile[] {
  return [...(list ?? [])].map((f) => ({ path: f.webkitRelativePath || f.name, data: f }));
}

/** `webGpu`: whether the worker gets a WebGPU adapter (null while asking); without one, the panel points at transformers.js. */
export function ModelPanel({ webGpu = null }: { webGpu?: boolean | null }) {
  const status = useStore((s) => s.modelStatus);
  const info = useStore((s) => s.modelInfo);
  const progress = useStore((s) => s.modelProgress);
  const error = useStore((s) => s.modelError);
  const dataset = useStore((s) => s.dataset);
  const saved = useStore((s) => s.modelForm);
  const lastModel = useStore((s) => s.lastModel);
  const setModelForm = useStore((s) => s.setModelForm);
  const loadModelWithSettings = useStore((s) => s.loadModelWithSettings);
  const cancelModelLoad = useStore((s) => s.cancelModelLoad);
  const applyModelSettings = useStore((s) => s.applyModelSettings);
  const unloadModel = useStore((s) => s.unloadModel);
  const [files, setFiles] = useState<LocalFile[]>([]);
  const listId = useId();
  const loading = status === 'loading';
  const modelForm = completeModelForm(saved);
  const { kind, mirror } = modelForm;
  const form = modelForm.settings;

  const settings: LlmPolicySettings = { ...form, shotDataset: dataset };
  let settingsProblem: string | null = null;
  try {
    resolveLlmSettings(settings);
  } catch (e) {
    settingsProblem = (e as Error).message;
  }
  const folderName = files[0]?.path.split('/')[0] ?? '';
  const llmSource = () => modelFormSource(modelForm, files);
  const sourceReady = llmSource() !== null;
  const load = () => {
    const s = llmSource();
    if (s && settingsProblem === null) void loadModelWithSettings(s, settings);
  };
  // After a reload: the model loaded before is gone with the page; offer it again (a local folder must be re-picked).
  const reloadOffer = status === 'idle' && !info && lastModel !== null && error === null;
  const recovery = progress && (progress.phase === 'recovering' || progress.phase === 'recovered') ? progress : null;

  return (
    <form
      className="panel watch-setup model-panel"
      aria-label="Model"
      onSubmit={(e) => {
        e.preventDefault();
        load();
      }}
    >
      {webGpu === false && (
        <p className="meta" role="note" aria-label="No WebGPU">
          This browser gives no WebGPU, so the WebGPU engine cannot load a model here. Watch and evaluate Qwen with
          transformers.js on WASM in the panel below instead (an ONNX export; inference only — training needs WebGPU).
        </p>
      )}
      {reloadOffer && (
        <div className="model-reload" role="status" aria-label="Model before the reload">
          <p className="meta">
            {lastModel.label} was loaded before this page reloaded; models are not kept across reloads.{' '}
            {lastModel.kind === 'folder' || kind === 'folder' ? 'Pick its folder again below to load it.' : 'Its source and settings are below.'}
          </p>
          {lastModel.kind !== 'folder' && kind !== 'folder' && (
            <button type="button" disabled={!sourceReady || settingsProblem !== null} onClick={load}>
              Load {lastModel.label} again
            </button>
          )}
        </div>
      )}
      <label className="field">
        Model source
        <select value={kind} onChange={(e) => setModelForm({ kind: e.target.value as ModelSourceKind })} disabled={loading}>
          <option value="hub">Hugging Face Hub id</option>
          <option value="url">Folder served with the app (URL or path)</option>
          <option value="folder">Local folder on this computer</option>
        </select>
      </label>
      {kind === 'hub' && (
        <>
          <label className="field">
            Hub id
            <input type="text" list={listId} value={modelForm.repo} spellCheck={false} autoComplete="off" placeholder={DEFAULT_MODEL.repo} disabled={loading} onChange={(e) => setModelForm({ repo: e.target.value })} />
            <datalist id={listId}>
              {MODEL_REGISTRY.map((m) => (
                <option key={m.repo} value={m.repo}>
                  {`${m.label} — ${m.note}, about ${formatBytes(m.approxBytes)}`}
                </option>
              ))}
            </datalist>
          </label>
          <label className="field">
            Mirror (base URL)
            <input type="url" value={mirror} spellCheck={false} autoComplete="off" disabled={loading} onChange={(e) => setModelForm({ mirror: e.target.value })} />
          </label>
          <HubDownloadNote repo={modelForm.repo} />
        </>
      )}
      {kind === 'url' && (
        <label className="field">
          Folder URL
          <input type="text" value={modelForm.url} spellCheck={false} autoComplete="off" placeholder={TINY_MODEL_URL} disabled={loading} onChange={(e) => setModelForm({ url: e.target.value })} />
        </label>
      )}
      {kind === 'url' && <ServedFolderNote onUseTiny={loading || modelForm.url === TINY_MODEL_URL ? undefined : () => setModelForm({ url: TINY_MODEL_URL })} />}
      {kind === 'folder' && (
        <label className="field">
          Model folder
          <input type="file" multiple {...DIRECTORY_INPUT} disabled={loading} onChange={(e) => setFiles(pickedFiles(e.target.files))} />
          <span className="meta">{files.length > 0 ? `${folderName}: ${files.length} files (config.json, tokenizer files and safetensors are read)` : 'Pick the folder holding config.json, the tokenizer files and the safetensors weights.'}</span>
        </label>
      )}
      {kind === 'folder' && files.length === 0 && <LocalFolderNote />}

      <ModelSettings value={form} onChange={(patch) => setModelForm({ settings: { ...form, ...patch } })} disabled={loading} />
      {settingsProblem !== null && <p className="step-error">{settingsProblem}</p>}

      <div className="button-row">
        <button type="submit" disabled={loading || !sourceReady || settingsProblem !== null}>
          {loading ? 'Loading…' : 'Load model'}
        </button>
        {loading && (
          <button type="button" onClick={cancelModelLoad}>
            Cancel
          </button>
        )}
        {status === 'ready' && info && (
          <>
            <button type="button" disabled={settingsProblem !== null} onClick={() => void applyModelSettings(settings)}>
              Apply settings
            </button>
            <button type="button" onClick={() => void unloadModel()}>
              Unload
            </button>
          </>
        )}
      </div>
      {loading && progress && !recovery && (
        <div role="status" aria-label="Model loading">
          {progress.phase === 'download' && <progress max={Math.max(progress.total, 1)} value={progress.loaded} />}
          <p className="meta">{progressText(progress)}</p>
        </div>
      )}
      {status === 'ready' && info && (
        <p className="meta" role="status" aria-label="Model loaded">
          Loaded {info.label}: {info.architecture}, {info.layers} layers, hidden {info.hidden}, {info.weights} weights, context {info.contextTokens}, on {info.adapter}. Policy: Qwen —{' '}
          {info.settings.shots === 0 ? 'zero-shot' : `${info.shotsBuilt}-shot`}, thinking {info.settings.thinking ? 'on' : 'off'},{' '}
          {info.settings.temperature === 0 ? 'greedy' : `temperature ${info.settings.temperature}, top-p ${info.settings.topP}`}, at most {info.settings.maxNewTokens} new tokens a turn.
          {info.settings.shots > info.shotsBuilt && ` (${info.settings.shots} shots asked, but the dataset '${info.settings.shotDataset}' has only ${info.shotsBuilt} train questions to show.)`}
          {form.weights !== info.weights && ` Load again to store the weights as ${form.weights}.`}
        </p>
      )}
      {status === 'ready' && info && <TestModelNotice />}
      {status === 'ready' && info && (
        <p className="meta">
          <a href={routeHash('train')}>Train this model</a> with a LoRA adapter (SFT warm-up, GRPO) in the Train view.
        </p>
      )}
      {recovery && (
        <p className="meta" role="status" aria-label="GPU recovery">
          {progressText(recovery)}
        </p>
      )}
      {error !== null && <ErrorBox title={error.startsWith(CANCELLED) ? 'Loading cancelled' : 'The model could not be loaded or configured'} message={error} />}
      <ModelCache />
    </form>
  );
}
