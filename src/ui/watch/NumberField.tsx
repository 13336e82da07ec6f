/**
 * A labelled whole-number input that lets a person clear it and type freely: the draft text is local, and the
 * store only receives a value once it parses as a whole number within [min, max]. Used by Watch and Evaluate.
 */
import { DraftNumberInput } from './DraftNumberInput.tsx';

export interface NumberFieldProps {
  label: string;
  value: number;
  onChange: (value: number) => void;
  min?: number;
  max?: number;
  disabled?: boolean;
  /** What the field means (a glossary text), behind an InfoTip beside the label. */
  help?: string;
}

export function NumberField({ label, value, onChange, min = 0, max = Number.MAX_SAFE_INTEGER, disabled, help }: NumberFieldProps) {
  const valid = (n: number) => Number.isSafeInteger(n) && n >= min && n <= max;
  return (
    <DraftNumberInput label={label} value={value} onChange={onChange} valid={valid} inputMode="numeric" min={min} max={max === Number.MAX_SAFE_INTEGER ? undefined : max} step={1} disabled={disabled} help={help} />
  );
}
