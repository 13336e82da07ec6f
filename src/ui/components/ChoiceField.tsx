/**
 * A labelled `<select>` over a fixed set of string choices (split, difficulty, …), typed by its choices so the
 * handler gets the union back without a cast at each use.
 */
import { Field } from './Field.tsx';

export interface Choice<T extends string> {
  value: T;
  label?: string;
  /** Offered but not choosable (an empty split). */
  disabled?: boolean;
}

export function ChoiceField<T extends string>({
  label,
  value,
  choices,
  onChange,
  disabled,
  className = 'field',
  help,
}: {
  label: string;
  value: T;
  choices: ReadonlyArray<T | Choice<T>>;
  onChange: (value: T) => void;
  disabled?: boolean;
  className?: string;
  /** What the field means (a glossary text), behind an InfoTip beside the label. */
  help?: string;
}) {
  const options = choices.map((c) => (typeof c === 'string' ? { value: c, label: c, disabled: false } : { value: c.value, label: c.label ?? c.value, disabled: c.disabled === true }));
  return (
    <Field label={label} help={help} className={className}>
      {(id) => (
        <select id={id} value={value} disabled={disabled} onChange={(e) => onChange(options.find((o) => o.value === e.target.value)?.value ?? value)}>
          {options.map((o) => (
            <option key={o.value} value={o.value} disabled={o.disabled}>
              {o.label}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}
