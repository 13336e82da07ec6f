/**
 * The Play view's deep link, `#/play?dataset=demo&q=demo-library-001&seed=3`, and how the view keeps it and the
 * episode in step. Pure functions, so every case is unit-tested (tests/ui/play-link.test.ts).
 *
 * How to think about it: the link and the episode are two copies of one fact. A link the view has not acted on yet
 * (typed, reloaded, back/forward) wins: the view starts the episode it names. Otherwise the episode wins (a button
 * started it): the URL is replaced to name it. `SyncMemo.link` is the link last acted on; that is what tells the
 * two apart. The header's dataset picker is the third party: a dataset with no episode yet gets a random one, once.
 *
 * Free play (a person's own SQLite file) has a link of its own, `#/play?free=my-zoo`: it names the dataset without
 * `dataset=`, so the app shell never makes the file the app-wide dataset that Train, Evaluate and Watch use. For a
 * free link the view passes the link's dataset as `dataset`, and a bare `#/play` returns to a free-play episode too.
 */

export interface PlayLink {
  dataset: string | null;
  q: string | null;
  /** A non-negative integer, or null when absent or malformed. */
  seed: number | null;
  /** The dataset is a free-play file, named by `free=` (never the app-wide dataset). */
  free?: boolean;
}

/** The episode the Play view holds, as far as the link is concerned. */
export interface EpisodeRef {
  dataset: string;
  questionId: string;
  seed: number;
  /** A free-play episode: its link says `free=`. */
  free?: boolean;
}

export interface PlayStartRequest {
  dataset: string;
  questionId?: string;
  seed?: number;
}

export interface SyncMemo {
  /** Key of the link the view last acted on (started, followed or wrote). */
  link: string | null;
  /** A dataset the view started a random episode for after the header's picker changed; null otherwise. */
  switchedTo: string | null;
  /** The dataset of a link the view wrote that the app shell has yet to apply to the header; null otherwise. */
  awaiting: string | null;
}

export type SyncAction = { kind: 'none' } | { kind: 'start'; request: PlayStartRequest } | { kind: 'navigate'; link: PlayLink };

export interface SyncPlan {
  action: SyncAction;
  memo: SyncMemo;
}

export const EMPTY_MEMO: SyncMemo = { link: null, switchedTo: null, awaiting: null };

/** Largest seed a link may carry: the environment draws seeds below 2^31. */
const MAX_SEED = 2 ** 31 - 1;

export function parseSeed(text: string | null | undefined): number | null {
  const trimmed = (text ?? '').trim();
  if (!/^\d{1,10}$/.test(trimmed)) return null;
  const seed = Number(trimmed);
  return seed <= MAX_SEED ? seed : null;
}

export function parsePlayLink(params: URLSearchParams): PlayLink {
  const text = (name: string): string | null => {
    const value = params.get(name)?.trim();
    return value ? value : null;
  };
  const free = text('free');
  if (free !== null) return { dataset: free, q: text('q'), seed: parseSeed(params.get('seed')), free: true };
  return { dataset: text('dataset'), q: text('q'), seed: parseSeed(params.get('seed')) };
}

/** The route parameters of a link, in the order the URL shows them. */
export function linkParams(link: PlayLink): { dataset?: string; free?: string; q?: string; seed?: number } {
  return {
    ...(link.dataset !== null && (link.free ? { free: link.dataset } : { dataset: link.dataset })),
    ...(link.q !== null && { q: link.q }),
    ...(link.seed !== null && { seed: link.seed }),
  };
}

export function episodeLink(episode: EpisodeRef): PlayLink {
  return { dataset: episode.dataset, q: episode.questionId, seed: episode.seed, ...(episode.free && { free: true }) };
}

export function linkKey(link: PlayLink): string {
  return JSON.stringify(link.free ? [link.dataset, link.q, link.seed, 'free'] : [link.dataset, link.q, link.seed]);
}

/** Whether the link names this episode (a link without a seed names any seed of its question). */
function names(link: PlayLink, episode: EpisodeRef, dataset: string): boolean {
  return (link.dataset ?? dataset) === episode.dataset && link.q === episode.questionId && (link.seed === null || link.seed === episode.seed);
}

/**
 * What to do now, given the link, the dataset chosen in the header, the episode held (null before the first) and
 * the memo of the last plan. The caller runs no plan while a step or a reset is in flight.
 */
export function planLinkSync(link: PlayLink, dataset: string, episode: EpisodeRef | null, memo: SyncMemo): SyncPlan {
  const key = linkKey(link);
  const none = (next: SyncMemo = memo): SyncPlan => ({ action: { kind: 'none' }, memo: next });
  const start = (request: PlayStartRequest, switchedTo: string | null = null): SyncPlan => ({ action: { kind: 'start', request }, memo: { link: key, switchedTo, awaiting: null } });
  const follow = (ep: EpisodeRef): SyncPlan => ({
    action: { kind: 'navigate', link: episodeLink(ep) },
    // A free-play link never reaches the header, so there is nothing to wait for.
    memo: { link: linkKey(episodeLink(ep)), switchedTo: null, awaiting: ep.dataset === dataset || ep.free ? null : ep.dataset },
  });

  if (key !== memo.link) {
    // A new link wins. The app shell applies its dataset to the header first; wait for that.
    if (link.dataset !== null && link.dataset !== dataset) return none();
    if (episode && names(link, episode, dataset)) return none({ link: key, switchedTo: null, awaiting: null });
    if (link.q !== null) return start({ dataset, questionId: link.q, ...(link.seed !== null && { seed: link.seed }) });
    if (link.seed !== null) return start({ dataset, seed: link.seed });
    // A bare `#/play` (the nav link) returns to the episode in play, a free-play one too.
    if (episode && (episode.dataset === dataset || (episode.free && link.dataset === null))) return follow(episode);
    return start({ dataset });
  }
  // The view wrote this link for an episode of another dataset: until the shell has put that dataset in the header,
  // a mismatch is that delay, not a person choosing a dataset.
  if (memo.awaiting !== null && memo.awaiting !== dataset) return none();
  const settled: SyncMemo = { ...memo, awaiting: null };
  if (!episode) return none(settled); // the link failed to start; its error is on screen
  if (episode.dataset === dataset || episode.dataset === memo.switchedTo) {
    return linkKey(episodeLink(episode)) === key ? none(settled) : follow(episode);
  }
  // The header's dataset changed under an episode of another dataset: play a random question of it, once.
  if (memo.switchedTo === dataset) return none(settled);
  return start({ dataset }, dataset);
}
