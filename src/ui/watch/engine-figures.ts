/**
 * The Engines panel's table, as text: one row per backend (time to first token, prefill and decode tokens/s, medians
 * of the rounds) and a line saying how many times faster the WebGPU engine is than transformers.js on each figure.
 * Pure, so a test checks the words and numbers without a browser.
 */
import { speedRatios } from '../../workers/engine-speed.ts';
import type { EngineComparison } from '../../workers/engine-compare.ts';

export interface EngineTableRow {
  backend: string;
  detail: string;
  ttft: string;
  prefill: string;
  decode: string;
}

const rate = (v: number) => `${v >= 100 ? v.toFixed(0) : v.toFixed(1)} tokens/s`;
const times = (v: number) => `${v >= 10 ? v.toFixed(0) : v.toFixed(2)}×`;

export function engineTableRows(c: EngineComparison): EngineTableRow[] {
  return c.rows.map((r) => ({
    backend: r.backend,
    detail: r.detail,
    ttft: `${r.median.ttftMs.toFixed(r.median.ttftMs >= 100 ? 0 : 1)} ms`,
    prefill: rate(r.median.prefillTokensPerSecond),
    decode: r.median.decodeTokensPerSecond === null ? '— (one token only)' : rate(r.median.decodeTokensPerSecond),
  }));
}

/** "The WebGPU engine is N× … than transformers.js" from the first two rows; null with fewer. */
export function engineRatioText(c: EngineComparison): string | null {
  if (c.rows.length < 2) return null;
  const [a, b] = c.rows;
  const r = speedRatios(a.median, b.median);
  const decode = r.decode === null ? 'decode not compared (a backend stopped after one token)' : `decode ${times(r.decode)}`;
  return `${a.backend} vs ${b.backend}: ${decode}, prefill ${times(r.prefill)}, time to first token ${times(r.ttft)} (above 1× means the ${a.backend} is faster).`;
}
