/**
 * How long a model download will take, said before it starts. The size comes from the model registry
 * (src/model/registry.ts, `approxBytes`); the speed from the browser's Network Information API
 * (`navigator.connection.downlink`, in Mbit/s) where it exists, else from a stated assumption.
 *
 * Chromium rounds `downlink` and never reports more than 10 Mbit/s (a privacy cap), so a reported 10 means "10 or
 * more": the estimate is then an upper bound and says so. Firefox and Safari have no `navigator.connection`.
 */

/** The speed assumed when the browser reports none, in Mbit/s (a common home broadband speed; stated on screen). */
export const ASSUMED_DOWNLINK_MBPS = 20;
/** The most Chromium reports as `downlink`, in Mbit/s: a value this high means "at least this". */
export const REPORTED_DOWNLINK_CAP_MBPS = 10;

export interface DownloadEstimate {
  /** Seconds at `mbps`. */
  seconds: number;
  /** The speed used, in Mbit/s. */
  mbps: number;
  /** 'reported': the browser's figure; 'at-least': the browser's capped figure (so `seconds` is an upper bound); 'assumed'. */
  basis: 'reported' | 'at-least' | 'assumed';
}

/** The browser's reported downlink in Mbit/s, or null where it reports none (or nothing usable). */
export function reportedDownlink(nav: unknown = typeof navigator === 'undefined' ? undefined : navigator): number | null {
  const downlink = (nav as { connection?: { downlink?: unknown } } | undefined)?.connection?.downlink;
  return typeof downlink === 'number' && Number.isFinite(downlink) && downlink > 0 ? downlink : null;
}

/** The time to download `bytes` at the reported speed (Mbit/s; null or unusable: the assumed speed). */
export function downloadEstimate(bytes: number, downlinkMbps: number | null): DownloadEstimate {
  const usable = downlinkMbps !== null && Number.isFinite(downlinkMbps) && downlinkMbps > 0;
  const mbps = usable ? downlinkMbps : ASSUMED_DOWNLINK_MBPS;
  const basis = !usable ? 'assumed' : downlinkMbps >= REPORTED_DOWNLINK_CAP_MBPS ? 'at-least' : 'reported';
  return { seconds: (Math.max(0, bytes) * 8) / (mbps * 1e6), mbps, basis };
}

/** A duration as a person reads an estimate: "under a minute", "about 7 min", "about 1 h 10 min". */
export function durationText(seconds: number): string {
  if (seconds < 60) return 'under a minute';
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `about ${minutes} min`;
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return `about ${h} h${m === 0 ? '' : ` ${m} min`}`;
}

/** The estimate in words, with where its speed came from. */
export function estimateText(e: DownloadEstimate): string {
  const speed = `${Number(e.mbps.toPrecision(3))} Mbit/s`;
  switch (e.basis) {
    case 'reported':
      return `${durationText(e.seconds)} at ${speed}, the speed this browser reports for your connection`;
    case 'at-least': {
      const d = durationText(e.seconds);
      const bound = d.startsWith('about ') ? `at most ${d.slice('about '.length)}` : d;
      return `${bound} (this browser reports ${speed} or more for your connection, the most it ever reports)`;
    }
    case 'assumed':
      return `${durationText(e.seconds)} at ${speed} (assumed: this browser does not report your connection's speed)`;
    default:
      return e.basis satisfies never;
  }
}
