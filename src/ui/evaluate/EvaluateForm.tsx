/**
 * The Evaluate form: policy, split (with its question count in the current dataset), number of episodes or all the
 * split's questions, and seed. The dataset is the one chosen in the header. Every field persists. For a model policy,
 * the run's estimate and the model settings it will use are shown above the Run button (RunEstimate.tsx).
 */
import type { SplitSelector } from '../../data/types.ts';
import { ChoiceField } from '../components/ChoiceField.tsx';
import { Field } from '../components/Field.tsx';
import { RunEstimate } from '../components/RunEstimate.tsx';
import { splitChoices } from '../components/split-choices.ts';
import { TestModelNotice } from '../components/TestModelNotice.tsx';
import { useStore } from '../store/store.ts';
import { NumberField } from '../watch/NumberField.tsx';
import { tip } from '../help/glossary.ts';

/** Most episodes one run may ask for (a run keeps every transcript in memory and in storage). */
const MAX_EPISODES = 10_000;

function splitCounts(questions: ReadonlyArray<{ split: string }> | null): Record<SplitSelector, number> | null {
  if (!questions) return null;
  const counts: Record<SplitSelector, number> = { train: 0, eval: 0, heldout: 0, all: questions.length };
  for (const q of questions) if (q.split in counts) counts[q.split as SplitSelector]++;
  return counts;
}

export function EvaluateForm({ dataset }: { dataset: string }) {
  const form = useStore((s) => s.evalForm);
  const setForm = useStore((s) => s.setEvalForm);
  const policies = useStore((s) => s.policyInfos);
  const questions = useStore((s) => {
    const entry = s.datasets[s.dataset];
    return entry?.status === 'ready' ? entry.summary.questions : null;
  });
  const running = useStore((s) => s.evalProgress !== null);
  const start = useStore((s) => s.startEvaluation);
  const notice = useStore((s) => s.evalPolicyNotice);
  const counts = splitCounts(questions);
  const available = counts?.[form.split] ?? 0;

  return (
    <form
      className="panel eval-form"
      aria-label="Evaluation settings"
      onSubmit={(e) => {
        e.preventDefault();
        void start(dataset);
      }}
    >
      <h3>New evaluation</h3>
      <p className="meta">
        Dataset <strong>{dataset}</strong> (change it in the header).
      </p>
      <div className="form-grid">
        <Field label="Policy" help={tip('policy')}>
          {(id) => (
            <select id={id} value={form.policy} onChange={(e) => setForm({ policy: e.target.value })} disabled={running || !policies}>
              {(policies ?? [{ name: form.policy, label: form.policy }]).map((p) => (
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
        <TestModelNotice policy={form.policy} />
        <ChoiceField
          label="Split"
          help={tip('evalSplit')}
          value={form.split}
          choices={splitChoices(questions, 'all-last')}
          onChange={(split: SplitSelector) => setForm({ split })}
          disabled={running}
        />
        <NumberField label="Episodes" help={tip('evalEpisodes')} value={form.episodes} min={1} max={MAX_EPISODES} onChange={(episodes) => setForm({ episodes })} disabled={running || form.allQuestions} />
        <NumberField label="Seed" help={tip('seed')} value={form.seed} onChange={(seed) => setForm({ seed })} disabled={running} />
      </div>
      <label className="check">
        <input type="checkbox" checked={form.allQuestions} onChange={(e) => setForm({ allQuestions: e.target.checked })} disabled={running} />
        All questions of the split, once each{counts ? ` (${available})` : ''}
      </label>
      <p className="meta">
        {form.allQuestions
          ? 'Every question of the split, in dataset order; the seed only seeds the policy.'
          : 'Questions drawn in a seeded order without replacement, cycling when the episodes outnumber them.'}
      </p>
      {counts && available === 0 && <p className="meta">This split has no questions in the {dataset} dataset.</p>}
      {!running && <RunEstimate policy={form.policy} episodes={form.allQuestions ? available : form.episodes} what="this evaluation" />}
      <button type="submit" className="primary" disabled={running || available === 0}>
        Run evaluation
      </button>
    </form>
  );
}
