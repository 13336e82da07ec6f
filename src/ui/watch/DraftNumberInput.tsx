/**
 * The number input behind NumberField and DecimalField: a person can clear it and type freely — the draft text is
 * local, and `onChange` only receives a value once `valid` accepts it; leaving the field shows the value again.
 */
import { useState } from 'react';
import { Field } from '../components/Field.tsx';

export interface DraftNumberInputProps {
  label: string;
  value: number;
  onChange: (value: number) => void;
  valid: (n: number) => boolean;
  inputMode: 'numeric' | 'decimal';
  min?: number;
  max?: number;
  step: number;
  disabled?: boolean;
  /** What the field means (a glossary text), behind an InfoTip beside the label. */
  help?: string;
}

export function DraftNumberInput({ label, value, onChange, valid, inputMode, min, max, step, disabled, help }: DraftNumberInputProps) {
  const [draft, setDraft] = useState<string | null>(null);
  return (
    <Field label={label} help={help}>
      {(id) => (
        <input
          id={id}
          type="number"
          inputMode={inputMode}
          min={min}
          max={max}
          step={step}
          disabled={disabled}
          value={draft ?? String(value)}
          aria-invalid={draft !== null && !valid(Number(draft))}
          onChange={(e) => {
            setDraft(e.target.value);
            const n = Number(e.target.value);
            if (e.target.value.trim() !== '' && valid(n)) onChange(n);
          }}
          onBlur={() => setDraft(null)}
        />
      )}
    </Field>
  );
}
