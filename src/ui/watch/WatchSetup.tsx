/**
 * The Watch form: which policy plays, and which question (drawn by the seed from a split, drawn from one
 * difficulty, or named by id). "New episode" resets the Watch session with these choices; "Next seed" moves the
 * seed on by one and starts again, so a run of episodes is reproducible.
 */
import { useId } from 'react';
import { DIFFICULTIES, SPLITS, type Difficulty, type SplitSelector } from '../../data/types.ts';
import { ChoiceField } from '../components/ChoiceField.tsx';
import { useStore } from '../store/store.ts';
import type { WatchQuestionMode } from '../store/watch-slice.ts';
import { NumberField } from './NumberField.tsx';

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
  const listId = useId();
  const loading = status === 'loading';
  const description = policies?.find((p) => p.name === options.policy)?.description;

  return (
    <form
      className="panel watch-setup"
      aria-label="Episode setup"
      onSubmit={(e) => {
        e.preventDefault();
        void start(dataset);
      }}
    >
      <label className="field">
        Policy
        <select value={options.policy} onChange={(e) => setOptions({ policy: e.target.value })} disabled={!policies}>
          {(policies ?? [{ name: options.policy, label: options.policy }]).map((p) => (
            <option key={p.name} value={p.name}>
              {p.label}
            </option>
          ))}
        </select>
      </label>
      {description && <p className="meta">{description}</p>}

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
          <ChoiceField label="Split" value={options.split} choices={[...SPLITS, 'all']} onChange={(split: SplitSelector) => setOptions({ split })} />
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
          onClick={() => {
            setOptions({ seed: options.seed + 1 });
            void start(dataset);
          }}
        >
          Next seed
        </button>
      </div>
    </form>
  );
}
