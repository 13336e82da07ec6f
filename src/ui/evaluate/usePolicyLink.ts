/**
 * Evaluate's deep link: `#/evaluate?policy=<name>` chooses that policy in the form, and the link follows the form's
 * policy at once (an adapter's Evaluate button, a choice in the form), so a reload or a shared link shows the policy
 * the form shows. A link naming a policy that is not listed falls back to Oracle with the form's notice.
 */
import { useEffect, useRef } from 'react';
import { navigate, useRoute } from '../router.ts';
import { useStore } from '../store/store.ts';

export function usePolicyLink(): void {
  const { params } = useRoute();
  const linked = params.get('policy');
  const chosen = useStore((s) => s.evalForm.policy);
  const infos = useStore((s) => s.policyInfos);
  const written = useRef<string | null>(null);

  useEffect(() => {
    // An incoming link is taken once the policies are listed (an unknown one falls back, with the notice).
    if (linked === null || linked === written.current || infos === null) return;
    written.current = linked;
    const state = useStore.getState();
    if (linked === state.evalForm.policy) return;
    state.chooseLinkedEvalPolicy(linked, infos);
  }, [linked, infos]);

  useEffect(() => {
    // An incoming link not taken yet (the policies are still loading) is left alone.
    const policy = useStore.getState().evalForm.policy;
    if (linked !== null && linked !== written.current && linked !== policy) return;
    written.current = policy;
    if (linked !== policy) navigate('evaluate', { policy }, { replace: true });
  }, [chosen, linked, infos]);
}
