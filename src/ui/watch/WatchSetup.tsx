/**
 * The Watch form: which policy plays, and which question (drawn by the seed from a split, drawn from one
 * difficulty, or named by id). "New episode" resets the Watch session with these choices, drawing another question
 * when it is drawn (the seed moves on when the episode on screen used it); "Next seed" moves the seed on by one and
 * starts again, so a run of episodes is reproducible. Choosing a policy applies to the episode on screen (the store
 * restarts it with the same question and seed). When the chosen policy went away (its model unloaded, or the page
 * reloaded), the form says so instead of switching silently, and chooses it again once its model is loaded again.
 */
import { useId } from 'react';
import { DIFFICULTIES, type Difficulty, type SplitSelector } from '../../data/types.ts';
import { ChoiceField } from '../components/ChoiceField.tsx';
import { Field } from '../components/Field.tsx';
import { WatchRunEstimate } from '../components/RunEstimate.tsx';
import { TestModelNotice } from '../components/TestModelNotice.tsx';
import { splitChoices } from '../components/split-choices.ts';
import { useStore } from '../store/store.ts';
import type { WatchQuestionMode } from '../store/watch-slice.ts';
import { NumberField } from './NumberField.tsx';
import { tip } from '../help/glossary.ts';

const MODE_LABELS: Record<WatchQuestionMode, string> = { random: 'At random', difficulty: 'By difficulty', id: 'By id' };

export function WatchSetup({ dataset }: { dataset: string }) {
  const options = useStore((s) => s.watchOptions);
  const policies = useStore((s) => s.policyInfos);
  const questions = useStore((s) => {
    const entry = s.datasets[s.dataset];
    return entry?.status === 'ready' ? entry.summary.questions : null;
  });
  const status = useStore((s) => s.watchStatus);
  const setOptions = useStore((s) => s.setWatchOptions);
  const start = useStore((s) => s.startWatchEpisode);
  const newEpisode = useStore((s) => s.newWatchEpisode);
  const notice = useStore((s) => s.watchPolicyNotice);
  const listId = useId();
  const loading = status === 'loading';
  const description = policies?.find((p) => p.name === options.policy)?.description;

  return (
    <form
      className="panel watch-setup"
      aria-label="Episode setup"
      onSubmit={(e) => {
        e.preventDefault();
        void newEpisode(dataset);
      }}
    >
      <Field label="Policy" help={tip('policy')}>
        {(id) => (
          <select id={id} value={options.policy} onChange={(e) => setOptions({ policy: e.target.value })} disabled={!policies}>
            {(policies ?? [{ name: options.policy, label: options.policy }]).map((p) => (
              <option key={p.name} value={p.name}>
                {p.label}
              </option>
            ))}
          </select>
        )}
      </Field>
      {notice !== null && (
        <p className="policy-notice" role="status" aria-label="Policy changed">
          {notice}
        </p>
      )}
      {description && <p className="meta">{description}</p>}
      <TestModelNotice policy={options.policy} />

      <label className="field">
        Question
        <select value={options.mode} onChange={(e) => setOptions({ mode: e.target.value as WatchQuestionMode })}>
          {(Object.keys(MODE_LABELS) as WatchQuestionMode[]).map((m) => (
            <option key={m} value={m}>
              {MODE_LABELS[m]}
            </option>
          ))}
        </select>
      </label>

      {options.mode === 'id' ? (
        <label className="field">
          Question id
          <input
            type="text"
            value={options.questionId}
            list={listId}
            spellCheck={false}
            autoComplete="off"
            placeholder={questions?.[0]?.id ?? 'question id'}
            onChange={(e) => setOptions({ questionId: e.target.value })}
          />
          <datalist id={listId}>
            {questions?.map((q) => (
              <option key={q.id} value={q.id}>
                {q.question}
              </option>
            ))}
          </datalist>
        </label>
      ) : (
        <>
          {options.mode === 'difficulty' && (
            <ChoiceField label="Difficulty" value={options.difficulty} choices={DIFFICULTIES} onChange={(difficulty: Difficulty) => setOptions({ difficulty })} />
          )}
          <ChoiceField label="Split" value={options.split} choices={splitChoices(questions, 'all-last')} onChange={(split: SplitSelector) => setOptions({ split })} />
        </>
      )}

      <NumberField label="Seed" value={options.seed} onChange={(seed) => setOptions({ seed })} />

      <div className="button-row">
        <button type="submit" className="primary" disabled={loading}>
          New episode
        </button>
        <button
          type="button"
          disabled={loading}
          onClick={() => void start(dataset, { seed: options.seed + 1 })}
        >
          Next seed
        </button>
      </div>
      <WatchRunEstimate />
    </form>
  );
}
