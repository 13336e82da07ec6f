/**
 * Hash routes, so the static build works from any sub-path and deep links survive a reload:
 * `#/play?dataset=demo&q=demo-library-001&seed=3`. The view is the path; everything else is a query parameter.
 * Compare's link names its two runs and the open question: `#/compare?a=<run id or run file URL>&b=…&q=<dataset/
 * questionId>` (ui/compare/useCompareLink.ts).
 */
import { useSyncExternalStore } from 'react';

export const VIEWS = ['play', 'watch', 'evaluate', 'train', 'compare', 'data', 'help'] as const;
export type View = (typeof VIEWS)[number];

export interface Route {
  view: View;
  params: URLSearchParams;
}

export type RouteParams = Record<string, string | number | undefined | null>;

export function parseHash(hash: string): Route {
  const [path, query = ''] = hash.replace(/^#\/?/, '').split('?', 2);
  const view = (VIEWS as readonly string[]).includes(path) ? (path as View) : 'play';
  return { view, params: new URLSearchParams(query) };
}

export function routeHash(view: View, params: RouteParams = {}): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== null && value !== '') query.set(key, String(value));
  const text = query.toString();
  return `#/${view}${text ? `?${text}` : ''}`;
}

/**
 * Changes the route; `replace` keeps the history entry (for state that is not a navigation, such as a new seed) and
 * applies only while `view` is still the one on screen.
 */
export function navigate(view: View, params: RouteParams = {}, options: { replace?: boolean } = {}): void {
  const hash = routeHash(view, params);
  if (options.replace) {
    // A replace rewrites the state of the view on screen; it never takes the person back to a view they have left
    // (Play's first episode resolving just after a click on another view's link would otherwise undo the click).
    if (parseHash(location.hash).view !== view) return;
    history.replaceState(null, '', hash);
    window.dispatchEvent(new HashChangeEvent('hashchange'));
  } else {
    location.hash = hash;
  }
}

function subscribe(onChange: () => void): () => void {
  window.addEventListener('hashchange', onChange);
  return () => window.removeEventListener('hashchange', onChange);
}

export function useHash(): string {
  return useSyncExternalStore(subscribe, () => location.hash);
}

export function useRoute(): Route {
  return parseHash(useHash());
}
