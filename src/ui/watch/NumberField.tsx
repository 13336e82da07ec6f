/**
 * A labelled whole-number input that lets a person clear it and type freely: the draft text is local, and the
 * store only receives a value once it parses as a whole number within [min, max]. Used by Watch and Evaluate.
 */
import { useState } from 'react';

export interface NumberFieldProps {
  label: string;
  value: number;
  onChange: (value: number) => void;
  min?: number;
  max?: number;
  disabled?: boolean;
  /** Tooltip of the field (a glossary text). */
  title?: string;
}

export function NumberField({ label, value, onChange, min = 0, max = Number.MAX_SAFE_INTEGER, disabled, title }: NumberFieldProps) {
  const [draft, setDraft] = useState<string | null>(null);
  const valid = (n: number) => Number.isSafeInteger(n) && n >= min && n <= max;
  return (
    <label className="field" title={title}>
      {label}
      <input
        type="number"
        inputMode="numeric"
        min={min}
        max={max === Number.MAX_SAFE_INTEGER ? undefined : max}
        step={1}
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
    </label>
  );
}
