/**
 * A small "?" button that shows an explanation beside a figure or a field, for every pointer: a `title` tooltip
 * shows only on a mouse hover, never on a touch screen or to a keyboard user, so text that explains something
 * lives here instead. The button says what it explains ("About the seed"), toggles the text (`aria-expanded`),
 * and Escape or a click elsewhere closes it. The text is rendered only while open, as a note after the button.
 */
import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import './info-tip.css';

export function InfoTip({ topic, children }: { topic: string; children: ReactNode }) {
  const [open, setOpen] = useState(false);
  const id = useId();
  const box = useRef<HTMLSpanElement>(null);
  useEffect(() => {
    if (!open) return;
    // A click or tap outside closes the note, as a tooltip would.
    const away = (e: PointerEvent) => {
      if (!box.current?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener('pointerdown', away);
    return () => document.removeEventListener('pointerdown', away);
  }, [open]);
  return (
    <span className="info-tip" ref={box}>
      <button
        type="button"
        className="info-tip-button"
        aria-label={`About ${topic}`}
        aria-expanded={open}
        aria-controls={id}
        onClick={() => setOpen(!open)}
        onKeyDown={(e) => {
          if (e.key === 'Escape' && open) {
            e.stopPropagation();
            setOpen(false);
          }
        }}
      >
        ?
      </button>
      <span id={id} role="note" className="info-tip-text" hidden={!open}>
        {open && children}
      </span>
    </span>
  );
}
