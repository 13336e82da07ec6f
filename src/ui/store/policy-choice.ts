/**
 * What becomes of the policy a view has chosen (Watch's, Evaluate's) when the worker's policy list changes: after new
 * model settings, a model (re)load, an unload, or a page reload (models are not kept across reloads).
 *
 * The rule, so the page never plays one policy while showing another: a chosen policy that is still listed stays
 * chosen; one that is gone falls back to Oracle, and the view says so (`notice`) instead of switching silently. A
 * model load chooses the loaded model's policy, unless a policy on that model (an adapter's `qwen+<id>`) is chosen
 * and still listed.
 */
import type { PolicyInfo } from '../../policies/registry.ts';

export const FALLBACK_POLICY = 'oracle';

export interface PolicyChoice {
  policy: string;
  /** Why the choice changed by itself (shown to the person); null when it did not, or changed as asked. */
  notice: string | null;
}

/** A policy that plays a loaded language model (the base `qwen` or an adapter on it, `qwen+<id>`). */
export function isModelPolicy(name: string): boolean {
  return name === 'qwen' || name.startsWith('qwen+');
}

/** The choice after the list became `infos`; `loadedModel` names the policy of a model just loaded, if any. */
export function choosePolicy(chosen: string, infos: readonly PolicyInfo[], loadedModel?: string): PolicyChoice {
  const listed = (name: string): boolean => infos.some((p) => p.name === name);
  if (loadedModel !== undefined && listed(loadedModel)) {
    // A policy on the model just loaded (its adapter `qwen+<id>` for `qwen`) stays; any other gives way to it.
    const onLoaded = chosen === loadedModel || chosen.startsWith(`${loadedModel}+`);
    return { policy: onLoaded && listed(chosen) ? chosen : loadedModel, notice: null };
  }
  if (listed(chosen)) return { policy: chosen, notice: null };
  const fallback = infos.find((p) => p.name === FALLBACK_POLICY)?.label ?? 'Oracle';
  return {
    policy: FALLBACK_POLICY,
    notice: `The policy '${chosen}' you chose is not available now (its model or adapter is not loaded), so ${fallback} plays instead.`,
  };
}
