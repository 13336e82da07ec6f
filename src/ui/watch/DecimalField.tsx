/**
 * A labelled decimal input (temperature, top-p) that lets a person clear it and type freely, like NumberField: the
 * draft text is local and `onChange` only receives a value once it parses within [min, max] (`minExclusive` for a
 * bound the value may not reach, as top-p's 0).
 */
import { useState } from 'react';

export interface DecimalFieldProps {
  label: string;
  value: number;
  onChange: (value: number) => void;
  min: number;
  max: number;
  step: number;
  minExclusive?: boolean;
  disabled?: boolean;
  /** Tooltip of the field (a glossary text). */
  title?: string;
}

export function DecimalField({ label, value, onChange, min, max, step, minExclusive = false, disabled, title }: DecimalFieldProps) {
  const [draft, setDraft] = useState<string | null>(null);
  const valid = (n: number) => Number.isFinite(n) && (minExclusive ? n > min : n >= min) && n <= max;
  return (
    <label className="field" title={title}>
      {label}
      <input
        type="number"
        inputMode="decimal"
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
    </label>
  );
}
