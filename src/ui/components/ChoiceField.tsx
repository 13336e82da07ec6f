/**
 * A labelled `<select>` over a fixed set of string choices (split, difficulty, …), typed by its choices so the
 * handler gets the union back without a cast at each use.
 */
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
  title,
}: {
  label: string;
  value: T;
  choices: ReadonlyArray<T | Choice<T>>;
  onChange: (value: T) => void;
  disabled?: boolean;
  className?: string;
  /** Tooltip of the field (a glossary text). */
  title?: string;
}) {
  const options = choices.map((c) => (typeof c === 'string' ? { value: c, label: c, disabled: false } : { value: c.value, label: c.label ?? c.value, disabled: c.disabled === true }));
  return (
    <label className={className} title={title}>
      {label}
      <select value={value} disabled={disabled} onChange={(e) => onChange(options.find((o) => o.value === e.target.value)?.value ?? value)}>
        {options.map((o) => (
          <option key={o.value} value={o.value} disabled={o.disabled}>
            {o.label}
          </option>
        ))}
      </select>
    </label>
  );
}
