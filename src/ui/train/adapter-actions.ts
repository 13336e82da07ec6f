/**
 * The Adapters panel's named actions: download an adapter's PEFT files (with its model card, one zip), load one from picked files or from a
 * Hub repo, delete one, and open one as the policy of Watch or Evaluate. Each worker call is followed by a fresh read
 * of the adapter list and of the policy lists (refreshTrainLists), since the worker registers every adapter it holds
 * as a policy of Watch, Evaluate and Compare.
 */
import { strToU8, zipSync } from 'fflate';
import { ADAPTER_CONFIG_FILE, ADAPTER_WEIGHTS_FILE, MAX_ADAPTER_FILE_BYTES } from '../../model/adapter-file.ts';
import { checkFileSize } from '../../model/file-caps.ts';
import { MODEL_CARD_FILE } from '../../model/model-card.ts';
import { envClient } from '../../workers/env-client.ts';
import type { AdapterInfo, HubAdapterOptions } from '../../workers/train-protocol.ts';
import { downloadBlob } from '../evaluate/download.ts';
import { navigate } from '../router.ts';
import { useStore } from '../store/store.ts';

/**
 * The adapter's name as a file and folder name (it names the zip and the folder inside it): ASCII letters, digits,
 * '_' and '-' kept, every run of anything else (dots and slashes included: no '..' path) one '-'; 'adapter' if empty.
 */
export function adapterFolderName(name: string): string {
  const safe = name.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '');
  return safe === '' ? 'adapter' : safe.slice(0, 100);
}

/**
 * Saves an adapter's PEFT files (adapter_model.safetensors, adapter_config.json, the README.md model card) as ONE
 * download, `<name>.zip` holding the folder `<name>/` (what PEFT's `from_pretrained` reads): three downloads would
 * make the browser ask whether the page may download several files, and one of them is easily lost.
 */
export async function downloadAdapter(adapter: AdapterInfo): Promise<void> {
  const files = await envClient().adapterFiles(adapter.id);
  const folder = adapterFolderName(adapter.name);
  const zip = zipSync({
    // Stored, not deflated: float weights barely compress, and deflating megabytes would hold the page.
    [`${folder}/${ADAPTER_WEIGHTS_FILE}`]: [files[ADAPTER_WEIGHTS_FILE], { level: 0 }],
    [`${folder}/${ADAPTER_CONFIG_FILE}`]: strToU8(files[ADAPTER_CONFIG_FILE]),
    [`${folder}/${MODEL_CARD_FILE}`]: strToU8(files[MODEL_CARD_FILE]),
  });
  // A copy on an ArrayBuffer of its own: a Blob takes no view of a shared buffer.
  downloadBlob(`${folder}.zip`, new Blob([new Uint8Array(zip)], { type: 'application/zip' }));
}

/** The two PEFT files among picked files: by their PEFT names, else the one .safetensors and the one .json. */
export function pickAdapterFiles(files: readonly File[]): { weights: File; config: File } {
  const named = (name: string) => files.find((f) => f.name === name);
  const only = (ext: string) => {
    const found = files.filter((f) => f.name.endsWith(ext));
    return found.length === 1 ? found[0] : undefined;
  };
  const weights = named(ADAPTER_WEIGHTS_FILE) ?? only('.safetensors');
  const config = named(ADAPTER_CONFIG_FILE) ?? only('.json');
  if (!weights || !config) {
    const missing = [!weights && ADAPTER_WEIGHTS_FILE, !config && ADAPTER_CONFIG_FILE].filter(Boolean).join(' and ');
    const pickle = !weights && files.some((f) => f.name.endsWith('.bin')) ? ' (adapter_model.bin is a PyTorch pickle, which a browser cannot read safely; re-save the adapter as safetensors)' : '';
    throw new Error(`Pick both files of a PEFT adapter (${ADAPTER_WEIGHTS_FILE} and ${ADAPTER_CONFIG_FILE}): ${missing} is missing${pickle}.`);
  }
  // Sizes first, from the File objects: nothing is read or copied to the worker for a file over its cap.
  checkFileSize(ADAPTER_CONFIG_FILE, config.size);
  checkFileSize(ADAPTER_WEIGHTS_FILE, weights.size, MAX_ADAPTER_FILE_BYTES);
  return { weights, config };
}

/** Loads an adapter from picked files into the worker, as `name` (default: the weights file's folder or name). */
export async function loadAdapterFromFiles(files: readonly File[], name: string): Promise<AdapterInfo> {
  const { weights, config } = pickAdapterFiles(files);
  const folder = weights.webkitRelativePath.split('/').slice(0, -1).join('/');
  const label = name.trim() || folder || weights.name.replace(/\.safetensors$/, '');
  const info = await envClient().loadAdapterFiles({ safetensors: new Uint8Array(await weights.arrayBuffer()), configJson: await config.text() }, label);
  await useStore.getState().refreshTrainLists();
  return info;
}

/** Loads a PEFT adapter from a Hub repo (`owner/name`, optionally a subfolder of it) into the worker, as `name`. */
export async function loadAdapterFromHub(repo: string, subfolder: string, name: string): Promise<AdapterInfo> {
  const options: HubAdapterOptions = { ...(subfolder.trim() !== '' && { subfolder: subfolder.trim() }), ...(name.trim() !== '' && { name: name.trim() }) };
  const info = await envClient().loadAdapterFromHub(repo.trim(), options);
  await useStore.getState().refreshTrainLists();
  return info;
}

export async function deleteAdapter(adapter: AdapterInfo): Promise<void> {
  await envClient().deleteAdapter(adapter.id);
  useStore.getState().forgetInitAdapter(adapter.id);
  await useStore.getState().refreshTrainLists();
}

/** Opens Evaluate with the adapter's policy chosen: base vs trained is that run and one with the base model's. */
export function evaluateAdapter(adapter: AdapterInfo): void {
  useStore.getState().chooseModelEvaluation(adapter.policy);
  navigate('evaluate');
}

/** Opens Watch with the adapter's policy chosen. */
export function watchAdapter(adapter: AdapterInfo): void {
  useStore.getState().setWatchOptions({ policy: adapter.policy });
  navigate('watch');
}
