/**
 * A form control with its label above it and, when there is one, what the setting means behind an InfoTip ("?")
 * beside the label: for every pointer, where a `title` on the label showed only on a mouse hover. The InfoTip sits
 * outside the `<label>` so the control's accessible name stays the label's words alone ("Seed", not "Seed ?"); the
 * label points at the control with `htmlFor`. `CheckField` is the same for a checkbox, its label after the box.
 */
import { useId, type ReactElement } from 'react';
import { InfoTip } from './InfoTip.tsx';

export function Field({ label, help, className = 'field', children }: { label: string; help?: string; className?: string; children: (id: string) => ReactElement }) {
  const id = useId();
  return (
    <div className={className}>
      <span className="field-label">
        <label htmlFor={id}>{label}</label>
        {help !== undefined && <InfoTip topic={label}>{help}</InfoTip>}
      </span>
      {children(id)}
    </div>
  );
}

export function CheckField({ label, help, className, checked, disabled, onChange }: { label: string; help?: string; className: string; checked: boolean; disabled?: boolean; onChange: (checked: boolean) => void }) {
  return (
    <span className={className}>
      <label>
        <input type="checkbox" checked={checked} disabled={disabled} onChange={(e) => onChange(e.target.checked)} />
        {label}
      </label>
      {help !== undefined && <InfoTip topic={label}>{help}</InfoTip>}
    </span>
  );
}
