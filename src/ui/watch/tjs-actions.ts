/**
 * Named actions of the transformers.js panel and the Engines panel: load an ONNX model with transformers.js, cancel
 * the load, apply the Model panel's settings to it, unload it, and time both backends on one prompt. Each is one round
 * trip to the environment worker; results land in the store's tjs slice (tjs-slice.ts) and in the policy list Watch
 * and Evaluate share (`qwen-tjs`, chosen in Watch when loaded).
 */
import { useEffect, useState } from 'react';
import type { LocalFile } from '../../model/local-folder.ts';
import { callback, envClient } from '../../workers/env-client.ts';
import type { EngineCompareRequest } from '../../workers/engine-compare.ts';
import type { LlmLoadProgress, LlmSource } from '../../workers/llm-generate.ts';
import type { LlmPolicySettings } from '../../workers/llm-settings.ts';
import { errorText } from '../store/datasets-slice.ts';
import { useStore } from '../store/store.ts';
import type { TjsForm } from '../store/tjs-slice.ts';
import { CANCELLED, isCancelled, refreshPolicies } from './model-actions.ts';

/** The source the form names (null until it names one: an empty id or URL, no folder picked). */
export function tjsFormSource(form: TjsForm, files: readonly LocalFile[]): LlmSource | null {
  switch (form.kind) {
    case 'hub':
      return form.repo.trim() === '' ? null : { kind: 'hub', repo: form.repo.trim(), ...(form.mirror.trim() !== '' && { base: form.mirror.trim() }) };
    case 'url':
      return form.url.trim() === '' ? null : { kind: 'url', url: form.url.trim() };
    case 'folder':
      return files.length > 0 ? { kind: 'files', files: [...files] } : null;
    default:
      return form.kind satisfies never;
  }
}

export async function loadTjsModel(source: LlmSource, form: TjsForm, settings: LlmPolicySettings): Promise<void> {
  if (useStore.getState().tjsStatus === 'loading') return;
  useStore.setState({ tjsStatus: 'loading', tjsError: null, tjsProgress: null });
  try {
    const info = await envClient().loadTjsModel(
      { source, dtype: form.dtype, device: form.device, settings },
      callback((p: LlmLoadProgress) => useStore.setState({ tjsProgress: p })),
    );
    await refreshPolicies(info.policy);
    useStore.setState({ tjsStatus: 'ready', tjsInfo: info, tjsProgress: null });
  } catch (e) {
    const held = await envClient()
      .tjsModelInfo()
      .catch(() => null);
    useStore.setState({
      tjsStatus: held ? 'ready' : isCancelled(e) ? 'idle' : 'error',
      tjsInfo: held,
      tjsProgress: null,
      tjsError: isCancelled(e) ? `${CANCELLED} A Hub download keeps the bytes it received, so loading again resumes it.` : errorText(e),
    });
  }
}

export function cancelTjsLoad(): void {
  void envClient().cancelTjsLoad();
}

export async function applyTjsSettings(settings: LlmPolicySettings): Promise<void> {
  try {
    useStore.setState({ tjsInfo: await envClient().setTjsSettings(settings), tjsError: null });
    await refreshPolicies();
  } catch (e) {
    useStore.setState({ tjsError: errorText(e) });
  }
}

export async function unloadTjsModel(): Promise<void> {
  await envClient().unloadTjsModel();
  useStore.setState({ tjsStatus: 'idle', tjsInfo: null, tjsProgress: null, tjsError: null, engineComparison: null });
  await refreshPolicies();
}

/** The worker's transformers.js model, read again (a page that mounted after a load, or after the worker restarted). */
export async function syncTjsModel(): Promise<void> {
  if (useStore.getState().tjsStatus === 'loading') return;
  const info = await envClient().tjsModelInfo();
  useStore.setState({ tjsInfo: info, tjsStatus: info ? 'ready' : useStore.getState().tjsStatus === 'error' ? 'error' : 'idle' });
}

export async function runEngineComparison(request: EngineCompareRequest): Promise<void> {
  if (useStore.getState().engineStatus === 'running') return;
  useStore.setState({ engineStatus: 'running', engineError: null, engineComparison: null }); // no stale table while measuring
  try {
    useStore.setState({ engineComparison: await envClient().compareEngines(request) });
  } catch (e) {
    useStore.setState({ engineError: errorText(e) });
  } finally {
    useStore.setState({ engineStatus: 'idle' });
  }
}

/** Whether the environment worker gets a WebGPU adapter: null while asking. */
export function useWebGpuPresent(): boolean | null {
  const [present, setPresent] = useState<boolean | null>(null);
  useEffect(() => {
    let live = true;
    envClient()
      .gpuAdapter()
      .then((a) => live && setPresent(a !== null))
      .catch(() => live && setPresent(false));
    return () => {
      live = false;
    };
  }, []);
  return present;
}
