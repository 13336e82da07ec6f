/**
 * What becomes of the policy a view has chosen (Watch's, Evaluate's) when the worker's policy list changes: after new
 * model settings, a model (re)load, an unload, or a page reload (models are not kept across reloads).
 *
 * The rule, so the page never plays one policy while showing another: a chosen policy that is still listed stays
 * chosen; one that is gone falls back to Oracle, and the view says so (`notice`) instead of switching silently. A
 * model load chooses the loaded model's policy, unless a policy on that model (an adapter's `qwen+<id>`) is chosen
 * and still listed.
 *
 * A view that remembers (Watch passes `awaited`) keeps the model policy that went away as `awaited`: while it is
 * missing the notice says so, and as soon as it is listed again (its model loaded again, its adapters with it) it is
 * chosen again. That is how "Qwen + adapter" comes back after a reload instead of plain Qwen. The person choosing a
 * policy themselves forgets it (the slice's job); so does loading a model it is not on.
 */
import type { PolicyInfo } from '../../policies/registry.ts';

export const FALLBACK_POLICY = 'oracle';

export interface PolicyChoice {
  policy: string;
  /** Why the choice changed by itself, or why the awaited policy does not play (shown to the person); null when neither. */
  notice: string | null;
  /** The model policy to choose again once it is listed; null when none (always null for a view that does not remember). */
  awaited: string | null;
}

/** A policy that plays a loaded language model (the base `qwen` or an adapter on it, `qwen+<id>`). */
export function isModelPolicy(name: string): boolean {
  return name === 'qwen' || name.startsWith('qwen+');
}

function labelOf(name: string, infos: readonly PolicyInfo[]): string {
  return infos.find((p) => p.name === name)?.label ?? (name === FALLBACK_POLICY ? 'Oracle' : name);
}

/** The one message about a chosen policy that is not available; `remembered`: it comes back with its model. */
export function unavailableNotice(missing: string, playing: string, remembered: boolean): string {
  const back = remembered ? ' Load its model again (Model panel) and it is chosen again.' : '';
  return `The policy '${missing}' you chose is not available now (its model or adapter is not loaded), so ${playing} plays instead.${back}`;
}

/**
 * The choice after the list became `infos`. `loadedModel`: the policy of a model just loaded, if any. `awaited`: for a
 * view that remembers, the model policy it waits for (null: none); left out, nothing is remembered.
 */
export function choosePolicy(chosen: string, infos: readonly PolicyInfo[], loadedModel?: string, awaited?: string | null): PolicyChoice {
  const listed = (name: string): boolean => infos.some((p) => p.name === name);
  const remembers = awaited !== undefined;
  if (awaited && listed(awaited)) return { policy: awaited, notice: null, awaited: null };
  if (loadedModel !== undefined && listed(loadedModel)) {
    // A policy on the model just loaded (its adapter `qwen+<id>` for `qwen`) stays; any other gives way to it.
    const onLoaded = chosen === loadedModel || chosen.startsWith(`${loadedModel}+`);
    return { policy: onLoaded && listed(chosen) ? chosen : loadedModel, notice: null, awaited: null };
  }
  if (listed(chosen)) {
    return awaited ? { policy: chosen, notice: unavailableNotice(awaited, labelOf(chosen, infos), true), awaited } : { policy: chosen, notice: null, awaited: null };
  }
  const remember = remembers && isModelPolicy(chosen) ? chosen : (awaited ?? null);
  return {
    policy: FALLBACK_POLICY,
    notice: unavailableNotice(remember ?? chosen, labelOf(FALLBACK_POLICY, infos), remember !== null),
    awaited: remember,
  };
}
