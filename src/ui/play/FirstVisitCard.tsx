/**
 * The card a newcomer sees at the top of Play until they close it: what an episode is, the three moves (look at the
 * tables, query, answer), an easy question to start with (first-visit.ts picks it from the dataset in use, the same
 * one every time), what became of it once played (first-visit.ts: playing, solved, missed, out of steps, with
 * "Play it again" once it is over) and a link to How it works. Closing it is for good: `firstVisitDismissed`
 * persists with the settings (settings-slice.ts). Not shown in free play, whose file has no questions to suggest.
 */
import { DEFAULT_ENV_CONFIG } from '../../env/types.ts';
import { routeHash } from '../router.ts';
import { useStore } from '../store/store.ts';
import { EXAMPLE_STATUS_TEXT, exampleQuestion, exampleStatus } from './first-visit.ts';

export function FirstVisitCard() {
  const dismissed = useStore((s) => s.firstVisitDismissed);
  const dismiss = useStore((s) => s.dismissFirstVisit);
  const dataset = useStore((s) => s.dataset);
  const questions = useStore((s) => {
    const entry = s.datasets[s.dataset];
    return entry?.status === 'ready' ? entry.summary.questions : null;
  });
  const example = questions ? exampleQuestion(questions) : null;
  const status = useStore((s) => (example === null ? 'offer' : exampleStatus(example.id, s.dataset, s.playEpisode)));
  const freePlay = useStore((s) => s.playEpisode?.question.freePlay === true);
  const busy = useStore((s) => s.playBusy !== null);
  const start = useStore((s) => s.startPlayEpisode);
  if (dismissed || freePlay) return null;
  return (
    <section className="panel first-visit" aria-labelledby="first-visit-title">
      <h3 id="first-visit-title">New here? Play one episode by hand</h3>
      <p>
        An episode is one question about one database. You have {DEFAULT_ENV_CONFIG.budget} steps, each one action; answering ends the episode and a correct
        answer earns the reward.
      </p>
      <ol className="first-visit-steps">
        <li>
          <strong>Look</strong>: pick a table, then <em>Describe</em> shows its columns and <em>Sample</em> its first rows.
        </li>
        <li>
          <strong>Query</strong>: write a SELECT in the editor and run it with <em>Query</em> (or Ctrl/⌘+Enter).
        </li>
        <li>
          <strong>Answer</strong>: type the value, list or rows the question asks for, or paste a result table, and press <em>Answer</em>.
        </li>
      </ol>
      {example && (
        <div className="first-visit-example">
          <p>
            An easy one to start with: <q>{example.question}</q>{' '}
            <span className="meta">
              ({example.dbId} · {example.difficulty})
            </span>
          </p>
          {status !== 'offer' && <p className="meta">{EXAMPLE_STATUS_TEXT[status]}</p>}
          {status !== 'playing' && (
            <button type="button" className={status === 'offer' ? 'primary' : undefined} aria-disabled={busy} onClick={() => void start({ dataset, questionId: example.id })}>
              {status === 'offer' ? 'Play this easy question' : 'Play it again'}
            </button>
          )}
        </div>
      )}
      <p className="first-visit-foot">
        <a href={routeHash('help')}>Read how it works</a> (the actions, the rewards, the policies).{' '}
        <button type="button" onClick={dismiss}>
          Close this guide
        </button>{' '}
        <span className="meta">It will not come back.</span>
      </p>
    </section>
  );
}
