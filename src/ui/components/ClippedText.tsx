/**
 * Text that may be huge (a database value, an action line, an observation), shown clipped: its first `max`
 * characters and '…', then "Show all N characters". Opened, it shows the value in a scrolling box (the first
 * `DISPLAY_LIMITS.fullChars` at most, said so when there are more) with a Copy button that copies the whole value.
 * Always rendered as text (React escapes it), never as HTML. Only spans and buttons, so it fits in a cell, a
 * `<code>` or a `<pre>`.
 */
import { useState } from 'react';
import { clipText, count, DISPLAY_LIMITS } from './cell-display.ts';
import { copyText } from './clipboard.ts';

export function ClippedText({ text, max = DISPLAY_LIMITS.cellChars }: { text: string; max?: number }) {
  const [open, setOpen] = useState(false);
  const clip = clipText(text, max);
  if (!clip.cut) return <>{text}</>;
  const full = clipText(text, DISPLAY_LIMITS.fullChars);
  return (
    <>
      {open ? (
        <span className="clip-full" tabIndex={0}>
          {full.shown}
        </span>
      ) : (
        <>{clip.shown}…</>
      )}
      <span className="clip-controls">
        <button type="button" className="clip-toggle" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? 'Show less' : `Show all ${count(text.length)} characters`}
        </button>
        {open && <CopyButton text={text} />}
        {open && full.cut && (
          <span className="meta">
            first {count(full.shown.length)} of {count(text.length)} characters shown; Copy takes them all
          </span>
        )}
      </span>
    </>
  );
}

/** Copies `text`, then says whether it worked (a live region). */
export function CopyButton({ text }: { text: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  return (
    <>
      <button type="button" className="clip-copy" onClick={() => void copyText(text).then((ok) => setState(ok ? 'copied' : 'failed'))}>
        Copy
      </button>
      <span role="status" className="meta">
        {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed: select the text and copy it by hand' : ''}
      </span>
    </>
  );
}
