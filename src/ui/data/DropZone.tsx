/**
 * A place to give the Data view files: drop them (folders too) or choose them with file inputs. The inputs are real
 * `<input type="file">`s inside labels styled as buttons, so each has an accessible name and works by keyboard; the
 * drop area itself is a convenience for pointer users and needs no focus.
 */
import { useState, type DragEvent } from 'react';
import { dropEntries, fromFileInput, readDropped, type GivenSelection } from './given-files.ts';

export interface FileInputSpec {
  /** The button's text, which is also the input's accessible name. */
  label: string;
  /** Choose a folder (`webkitdirectory`) rather than files. */
  directory?: boolean;
  accept?: string;
}

export interface DropZoneProps {
  /** Accessible name of the zone, e.g. "Spider folder or zip". */
  name: string;
  /** What to drop, in words, shown inside the zone. */
  prompt: string;
  inputs: FileInputSpec[];
  disabled?: boolean;
  onGiven: (selection: GivenSelection) => void;
}

export function DropZone({ name, prompt, inputs, disabled = false, onGiven }: DropZoneProps) {
  const [over, setOver] = useState(false);

  const onDragOver = (e: DragEvent<HTMLElement>) => {
    if (disabled || !e.dataTransfer.types.includes('Files')) return;
    e.preventDefault();
    e.dataTransfer.dropEffect = 'copy';
    setOver(true);
  };
  const onDrop = (e: DragEvent<HTMLElement>) => {
    e.preventDefault();
    setOver(false);
    if (disabled) return;
    const dropped = dropEntries(e.dataTransfer);
    void readDropped(dropped).then((selection) => selection && onGiven(selection));
  };

  return (
    <section className={`drop-zone${over ? ' over' : ''}${disabled ? ' disabled' : ''}`} aria-label={name} onDragOver={onDragOver} onDragLeave={() => setOver(false)} onDrop={onDrop}>
      <p className="drop-prompt">{prompt}</p>
      <div className="file-buttons">
        {inputs.map((spec) => (
          <label key={spec.label} className={`file-button${disabled ? ' disabled' : ''}`}>
            {spec.label}
            <input
              type="file"
              className="visually-hidden"
              disabled={disabled}
              multiple={spec.directory}
              accept={spec.accept}
              ref={(el) => {
                if (el) el.webkitdirectory = spec.directory === true;
              }}
              onChange={(e) => {
                const selection = fromFileInput(e.currentTarget.files);
                e.currentTarget.value = '';
                if (selection) onGiven(selection);
              }}
            />
          </label>
        ))}
      </div>
    </section>
  );
}
