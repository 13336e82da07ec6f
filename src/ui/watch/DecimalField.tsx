/**
 * A labelled decimal input (temperature, top-p) that lets a person clear it and type freely, like NumberField: the
 * draft text is local and `onChange` only receives a value once it parses within [min, max] (`minExclusive` for a
 * bound the value may not reach, as top-p's 0).
 */
import { DraftNumberInput } from './DraftNumberInput.tsx';

export interface DecimalFieldProps {
  label: string;
  value: number;
  onChange: (value: number) => void;
  min: number;
  max: number;
  step: number;
  minExclusive?: boolean;
  disabled?: boolean;
  /** What the field means (a glossary text), behind an InfoTip beside the label. */
  help?: string;
}

export function DecimalField({ label, value, onChange, min, max, step, minExclusive = false, disabled, help }: DecimalFieldProps) {
  const valid = (n: number) => Number.isFinite(n) && (minExclusive ? n > min : n >= min) && n <= max;
  return <DraftNumberInput label={label} value={value} onChange={onChange} valid={valid} inputMode="decimal" min={min} max={max} step={step} disabled={disabled} help={help} />;
}
