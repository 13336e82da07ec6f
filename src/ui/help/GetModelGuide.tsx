/**
 * "Get a model": the three ways a Qwen checkpoint reaches the page, said where a person needs them — the Model panel
 * shows the note of the source it has chosen, Help shows all three (`GetModelGuide`), Train points here.
 *
 * - Hub: the download's size (the registry's `approxBytes`, src/model/registry.ts, the one place sizes live) and a
 *   time estimate (download-estimate.ts), both before the download starts; an id not in the registry says its size
 *   is known only once the download starts.
 * - Served folder: `npm run model:tiny` writes a test model into public/models/tiny/, which `npm start` and
 *   `npm run dev` serve at models/tiny/ (scripts/make-tiny-model.ts), so the folder loads with no other step.
 * - Local folder: the files a folder must hold, and how to get Qwen3-0.6B's.
 */
import { formatBytes } from '../../model/cache.ts';
import { DEFAULT_MODEL, registryEntry } from '../../model/registry.ts';
import { routeHash } from '../router.ts';
import { downloadEstimate, estimateText, reportedDownlink } from './download-estimate.ts';

/** The Help section "Get a model" (HelpView scrolls to it). */
export const GET_MODEL_SECTION = 'get-a-model';
export const GET_MODEL_LINK = routeHash('help', { section: GET_MODEL_SECTION });

/** Where `npm run model:tiny` writes by default, and the path the page loads it from. */
export const TINY_MODEL_FOLDER = 'public/models/tiny/';
export const TINY_MODEL_URL = 'models/tiny/';

/** The size and time of a Hub model's download, before it starts (`downlinkMbps`: the browser's, for tests). */
export function HubDownloadNote({ repo, downlinkMbps = reportedDownlink(), offlineHint = true }: { repo: string; downlinkMbps?: number | null; offlineHint?: boolean }) {
  const entry = registryEntry(repo.trim());
  return (
    <p className="meta" role="note" aria-label="Download size">
      {entry ? (
        <>
          {entry.label} is a download of about <strong>{formatBytes(entry.approxBytes)}</strong>, once: {estimateText(downloadEstimate(entry.approxBytes, downlinkMbps))}.
          It stays in this browser’s model cache (below), so later loads read it from there.
        </>
      ) : (
        <>This model’s size is known once its download starts (the progress bar shows it). {DEFAULT_MODEL.repo} is about {formatBytes(DEFAULT_MODEL.approxBytes)}.</>
      )}
      {offlineHint && (
        <>
          {' '}
          Without internet, use a folder instead (<a href={GET_MODEL_LINK}>Get a model</a> in How it works).
        </>
      )}
    </p>
  );
}

/** How a folder comes to be served with the app; `onUseTiny` (the Model panel) fills in the tiny model's path. */
export function ServedFolderNote({ onUseTiny }: { onUseTiny?: () => void }) {
  return (
    <p className="meta" role="note" aria-label="Served folder">
      A model folder on the server of this page. <code>npm run model:tiny</code> writes a small test model with random weights into{' '}
      <code>{TINY_MODEL_FOLDER}</code>, which <code>npm start</code> and <code>npm run dev</code> serve at <code>{TINY_MODEL_URL}</code>; any Hugging Face model folder
      copied under <code>public/models/</code> loads the same way.{' '}
      {onUseTiny && (
        <button type="button" onClick={onUseTiny}>
          Use {TINY_MODEL_URL}
        </button>
      )}
    </p>
  );
}

/** What a local folder must hold, and how to get one. */
export function LocalFolderNote() {
  return (
    <p className="meta" role="note" aria-label="Local folder">
      A Hugging Face model folder on this computer: <code>config.json</code>, <code>tokenizer.json</code>, <code>tokenizer_config.json</code> and{' '}
      <code>model.safetensors</code> (or its shards with <code>model.safetensors.index.json</code>). For example <code>hf download {DEFAULT_MODEL.repo} --local-dir qwen3</code>{' '}
      (Python’s huggingface_hub) fetches {DEFAULT_MODEL.label}, about {formatBytes(DEFAULT_MODEL.approxBytes)}. The files are read for this page only, never cached: pick
      the folder again after a reload.
    </p>
  );
}

/** All three ways, for Help. */
export function GetModelGuide() {
  return (
    <dl className="help-list">
      <dt>From the Hugging Face Hub (needs internet)</dt>
      <dd>
        In <a href={routeHash('watch')}>Watch</a>’s Model panel, the default source. <HubDownloadNote repo={DEFAULT_MODEL.repo} offlineHint={false} />
      </dd>
      <dt>A folder served with the app</dt>
      <dd>
        <ServedFolderNote /> In the Model panel choose “Folder served with the app” and enter <code>{TINY_MODEL_URL}</code>.
      </dd>
      <dt>A local folder on this computer</dt>
      <dd>
        <LocalFolderNote />
      </dd>
    </dl>
  );
}
