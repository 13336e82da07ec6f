/**
 * The Model panel's named actions: load a model with its settings, cancel a load, apply new settings to the loaded
 * model, unload it, and read or clear the browser's model cache. Each is one round trip to the environment worker;
 * the results land in the Watch slice's model fields (`modelStatus`, `modelInfo`, `modelProgress`, `modelError`) and
 * in the policy list Watch and Evaluate share, so the two views see a model come and go at once. A chosen policy
 * survives new settings while it is still listed (the store's `applyPolicyList`): Apply settings never turns
 * "Qwen + adapter" into plain "Qwen". One that went away with its model (an unload, a page reload) is awaited by
 * Watch and chosen again when a load lists it, so loading the model again after a reload brings the adapter back.
 *
 * The progress callback given to `loadModel` stays live after the load: the worker reports a device-loss recovery
 * through it ('recovering', 'recovered'), which the panel shows as a notice.
 */
import type { CachedModel } from '../../model/cache.ts';
import { callback, envClient } from '../../workers/env-client.ts';
import type { LoadedModelInfo } from '../../workers/env-protocol.ts';
import type { LlmLoadProgress, LlmSource } from '../../workers/llm-generate.ts';
import type { LlmPolicySettings } from '../../workers/llm-settings.ts';
import { errorText } from '../store/datasets-slice.ts';
import type { ModelSourceKind } from '../store/model-form.ts';
import { useStore } from '../store/store.ts';

/** How the message of a cancelled load starts. */
export const CANCELLED = 'Loading was cancelled.';

/** True for a load the user cancelled (the worker's LoadCancelledError, or an AbortError). */
export function isCancelled(error: unknown): boolean {
  const name = (error as { name?: unknown } | null)?.name;
  return name === 'LoadCancelledError' || name === 'AbortError' || name === 'DownloadCancelledError';
}

/**
 * Lists the worker's policies again; a chosen policy that is still listed stays, one that is gone (the model
 * unloaded) falls back to Oracle with a notice. `loadedModel`: the policy of a model just loaded, chosen in Watch
 * unless a policy on it (an adapter) is chosen already.
 */
export async function refreshPolicies(loadedModel?: string): Promise<void> {
  useStore.getState().applyPolicyList(await envClient().policies(), loadedModel);
}

function loaded(info: LoadedModelInfo): void {
  useStore.setState({ modelStatus: 'ready', modelInfo: info, modelError: null });
}

/** The kind of form source an `LlmSource` came from. */
function sourceKind(source: LlmSource): ModelSourceKind {
  return source.kind === 'files' ? 'folder' : source.kind;
}

/**
 * Loads `source` with `settings`; on success its policy is listed and chosen in Watch. A cancelled or failed load
 * leaves the model held before (if any) in place, with the reason shown.
 */
export async function loadModelWithSettings(source: LlmSource, settings: LlmPolicySettings): Promise<void> {
  const state = useStore.getState();
  if (state.modelStatus === 'loading') return;
  const before = state.modelInfo;
  useStore.setState({ modelStatus: 'loading', modelError: null, modelProgress: null });
  try {
    const info = await envClient().loadModel(
      source,
      settings,
      callback((p: LlmLoadProgress) => useStore.setState({ modelProgress: p })),
    );
    await refreshPolicies(info.policy);
    loaded(info);
    useStore.setState({ lastModel: { kind: sourceKind(source), label: info.label } });
  } catch (e) {
    const held = await envClient()
      .modelInfo()
      .catch(() => before);
    useStore.setState({
      modelStatus: held ? 'ready' : isCancelled(e) ? 'idle' : 'error',
      modelInfo: held,
      modelProgress: null,
      modelError: isCancelled(e) ? `${CANCELLED} ${held ? `${held.label} is still loaded. ` : ''}A Hub download keeps the bytes it received, so loading again resumes it.` : errorText(e),
    });
  }
}

/** Stops the load in progress (the worker keeps a Hub download's partial bytes). */
export function cancelModelLoad(): void {
  void envClient().cancelModelLoad();
}

/** New prompting and sampling settings for the loaded model, without reloading it (next episode onwards). */
export async function applyModelSettings(settings: LlmPolicySettings): Promise<void> {
  try {
    loaded(await envClient().setModelSettings(settings));
    await refreshPolicies();
  } catch (e) {
    useStore.setState({ modelError: errorText(e) });
  }
}

/** Drops the model from the worker and the GPU; Watch and Evaluate fall back to Oracle if they had chosen it. */
export async function unloadModel(): Promise<void> {
  await envClient().unloadModel();
  useStore.setState({ modelStatus: 'idle', modelInfo: null, modelProgress: null, modelError: null, lastModel: null });
  await refreshPolicies();
}

export function listCachedModels(): Promise<CachedModel[]> {
  return envClient().cachedModels();
}

export function clearCachedModel(model: CachedModel): Promise<number> {
  return envClient().clearCachedModel(model.repo, { revision: model.revision, base: model.base });
}

export function clearModelCache(): Promise<void> {
  return envClient().clearModelCache();
}
