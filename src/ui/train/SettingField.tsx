/**
 * A labelled number input for one training setting. Unlike Watch's NumberField it hands every number typed to the
 * form, in range or not (a cleared field as NaN): the Train form checks the whole config at Start and names the
 * setting at fault (`invalid`), so a value never silently stays what it was before.
 */
import { useId, useState } from 'react';
import { Field } from '../components/Field.tsx';
import { trainSettingHelp } from '../help/glossary.ts';

export interface SettingFieldProps {
  label: string;
  value: number;
  onChange: (value: number) => void;
  /** Whole numbers (step 1) or any decimal. */
  whole: boolean;
  invalid?: boolean;
  hint?: string;
  disabled?: boolean;
}

export function SettingField({ label, value, onChange, whole, invalid = false, hint, disabled }: SettingFieldProps) {
  const [draft, setDraft] = useState<string | null>(null);
  const hintId = useId();
  const field = (
    <Field label={label} help={trainSettingHelp(label)}>
      {(id) => (
        <input
          id={id}
          type="number"
          inputMode={whole ? 'numeric' : 'decimal'}
          step={whole ? 1 : 'any'}
          disabled={disabled}
          value={draft ?? (Number.isNaN(value) ? '' : String(value))}
          aria-invalid={invalid}
          aria-describedby={hint === undefined ? undefined : hintId}
          onChange={(e) => {
            setDraft(e.target.value);
            onChange(e.target.value.trim() === '' ? Number.NaN : Number(e.target.value));
          }}
          onBlur={() => setDraft(null)}
        />
      )}
    </Field>
  );
  if (hint === undefined) return field;
  return (
    <div className="setting">
      {field}
      <span id={hintId} className="hint">
        {hint}
      </span>
    </div>
  );
}
