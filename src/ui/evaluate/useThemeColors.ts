/**
 * The theme's colours as values a canvas can use (chart.js draws on a canvas, which cannot read CSS variables).
 * They follow the page: the shell's `data-theme` attribute on <html> (watched with a MutationObserver, since the
 * shell sets it in an effect after rendering) and, on the system theme, the system's light/dark preference.
 */
import { useMemo, useSyncExternalStore } from 'react';

export interface ThemeColors {
  fg: string;
  muted: string;
  border: string;
  accent: string;
  /** Successes. */
  good: string;
  /** Failures. */
  bad: string;
  bg: string;
}

const DARK = '(prefers-color-scheme: dark)';

function subscribe(onChange: () => void): () => void {
  const query = matchMedia(DARK);
  query.addEventListener('change', onChange);
  const observer = new MutationObserver(onChange);
  observer.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
  return () => {
    query.removeEventListener('change', onChange);
    observer.disconnect();
  };
}

/** What decides the colours: the explicit theme, or the system's preference. */
function themeKey(): string {
  return document.documentElement.dataset.theme ?? (matchMedia(DARK).matches ? 'system-dark' : 'system-light');
}

function readColors(): ThemeColors {
  const style = getComputedStyle(document.documentElement);
  const read = (name: string, fallback: string) => style.getPropertyValue(name).trim() || fallback;
  return {
    fg: read('--fg', '#1b1f24'),
    muted: read('--muted', '#57606a'),
    border: read('--border', '#d0d7de'),
    accent: read('--accent', '#0b5cad'),
    good: read('--eval-good', '#1a7f37'),
    bad: read('--error-fg', '#a40e26'),
    bg: read('--bg', '#ffffff'),
  };
}

export function useThemeColors(): ThemeColors {
  const key = useSyncExternalStore(subscribe, themeKey);
  // eslint-disable-next-line react-hooks/exhaustive-deps -- the key stands for the DOM state readColors reads.
  return useMemo(() => readColors(), [key]);
}
