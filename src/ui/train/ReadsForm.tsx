/**
 * The toy task's form: what "learn to read" is, its sizes (blank seed: a new one each run) and Start. The run
 * (src/workers/train-reads-session.ts) builds its own tiny model and databases in the worker, so no loaded model is
 * needed; it keeps no checkpoint and no adapter, and Pause is not offered (Stop is).
 */
import { useEffect } from 'react';
import { useStore } from '../store/store.ts';
import { runActive, type ReadsForm as ReadsFormValues } from '../store/train-slice.ts';
import { SettingField } from './SettingField.tsx';

const SIZES: ReadonlyArray<{ key: keyof ReadsFormValues; label: string; hint: string }> = [
  { key: 'runSeed', label: 'Run seed', hint: 'Draws the databases; blank: a new seed each run.' },
  { key: 'sftSteps', label: 'SFT steps', hint: 'Warm-up on the Oracle’s transcripts.' },
  { key: 'grpoSteps', label: 'GRPO steps', hint: 'Under the default reward weights.' },
  { key: 'sftDatabases', label: 'SFT databases', hint: 'Whose Oracle transcripts the warm-up learns (5 questions each).' },
  { key: 'grpoDatabases', label: 'GRPO databases', hint: 'GRPO’s training questions (5 each).' },
  { key: 'freshDatabases', label: 'Fresh databases', hint: '5 questions each, measured before and after GRPO.' },
];

export function ReadsForm() {
  const form = useStore((s) => s.readsForm);
  const defaults = useStore((s) => s.readsDefaults);
  const active = useStore((s) => runActive(s.trainRun));
  const setForm = useStore((s) => s.setReadsForm);
  const readDefaults = useStore((s) => s.readReadsDefaults);
  const start = useStore((s) => s.startReadsRun);
  useEffect(() => {
    void readDefaults();
  }, [readDefaults]);

  return (
    <form
      className="panel train-form"
      aria-label="Toy task settings"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        void start();
      }}
    >
      <h3>Toy: learn to read</h3>
      <p className="meta">
        A tiny Qwen3 with random weights ({defaults ? defaults.model : '…'}), built here: <strong>no loaded model is needed</strong> and nothing is downloaded. Each
        database’s contents (names, counts, years) are drawn from its own seed, so a question’s answer changes from database to database: only a model that
        reads what DESCRIBE, SAMPLE and QUERY show can answer. The run warms the model up by SFT on the Oracle’s transcripts, then trains it with GRPO on other
        databases, and measures success on fresh databases no update saw, before GRPO (the control) and after.
      </p>
      <p className="meta">
        The bar to beat: the best policy that does not read (one fixed answer per question) is right{' '}
        {defaults ? <strong>{defaults.ceiling.toFixed(4)}</strong> : '…'} of the time. No checkpoint or adapter is kept, and Pause is not offered (Stop is).
      </p>
      <fieldset className="train-form-lock" disabled={active}>
        <div className="form-grid">
          {SIZES.map((s) => (
            <SettingField key={s.key} label={s.label} value={form[s.key]} whole hint={s.hint} disabled={active} onChange={(v) => setForm({ [s.key]: v })} />
          ))}
        </div>
        <div className="button-row">
          <button type="submit" className="primary" disabled={active}>
            Start the toy run
          </button>
        </div>
      </fieldset>
    </form>
  );
}
