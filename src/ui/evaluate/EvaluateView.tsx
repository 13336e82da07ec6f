/**
 * The Evaluate view: run a policy over a question set in the environment worker (the page stays responsive), with
 * progress, ETA and Cancel; see the results as figures, charts and episodes; keep runs in IndexedDB, export them
 * (JSONL, CSV) and delete them. The run shown last comes back after a reload. The link names the chosen policy
 * (usePolicyLink.ts).
 */
import { useEffect } from 'react';
import { useStore } from '../store/store.ts';
import { EvaluateForm } from './EvaluateForm.tsx';
import { RunProgress } from './RunProgress.tsx';
import { RunResults } from './RunResults.tsx';
import { SavedRuns } from './SavedRuns.tsx';
import { usePolicyLink } from './usePolicyLink.ts';
import './evaluate.css';

function Message() {
  const message = useStore((s) => s.evalMessage);
  const dismiss = useStore((s) => s.dismissEvalMessage);
  if (!message) return null;
  return (
    <div className={message.kind === 'error' ? 'error eval-message' : 'panel eval-message'} role={message.kind === 'error' ? 'alert' : 'status'}>
      <p>{message.text}</p>
      <button type="button" onClick={dismiss}>
        Dismiss
      </button>
    </div>
  );
}

export default function EvaluateView() {
  const dataset = useStore((s) => s.dataset);
  const loadPolicies = useStore((s) => s.loadPolicyInfos);
  const shownRunId = useStore((s) => s.shownRunId);
  const showRun = useStore((s) => s.showRun);
  const setOpenEpisode = useStore((s) => s.setOpenEpisode);
  usePolicyLink();

  useEffect(() => {
    void loadPolicies();
  }, [loadPolicies]);
  useEffect(() => {
    if (shownRunId !== null) void showRun(shownRunId);
  }, [shownRunId, showRun]);
  // A transcript left open when leaving the view (say, by "watch it again") is closed on return.
  useEffect(() => () => setOpenEpisode(null), [setOpenEpisode]);

  return (
    <div className="evaluate-view">
      <h2>Evaluate a policy</h2>
      <div className="evaluate-top">
        <div className="evaluate-run">
          <EvaluateForm dataset={dataset} />
          <RunProgress />
          <Message />
        </div>
        <SavedRuns />
      </div>
      <RunResults />
    </div>
  );
}
