/**
 * What the heat map of "what the adapter changed" shows, as plain functions (AdapterHeatmap.tsx renders them): which
 * adapter an episode's policy played with, a reply token's visible text, the colour of a log-prob delta, and the
 * words a person reads beside it. Blue: the adapter made the token likelier; orange: less likely (a pair that
 * colour-blind readers tell apart); the strength is |delta| over the episode's largest |delta|.
 */
import { ADAPTER_POLICY_PREFIX } from '../../workers/adapter-library.ts';

/** The kept adapter a policy name plays with (`qwen+<id>` → id), or null for the base model and other policies. */
export function adapterOfPolicy(policy: string): string | null {
  return policy.startsWith(ADAPTER_POLICY_PREFIX) && policy.length > ADAPTER_POLICY_PREFIX.length ? policy.slice(ADAPTER_POLICY_PREFIX.length) : null;
}

/** A token's text with its whitespace made visible (a token can be a lone space or newline). */
export function visibleToken(text: string): string {
  if (text === '') return '∅';
  return text.replace(/\n/g, '↵').replace(/\t/g, '⇥').replace(/^ +| +$/g, (spaces) => '·'.repeat(spaces.length));
}

/** The largest |delta| of the tokens, at least `floor` (so an adapter that changed almost nothing looks pale). */
export function deltaScale(deltas: Iterable<number>, floor = 0.05): number {
  let max = floor;
  for (const d of deltas) if (Number.isFinite(d)) max = Math.max(max, Math.abs(d));
  return max;
}

const MORE = '37, 99, 235'; // blue
const LESS = '234, 88, 12'; // orange

/** The background of a token whose log-prob moved by `delta` nats, on a scale whose strongest colour is `scale`. */
export function deltaColor(delta: number, scale: number): string {
  if (!Number.isFinite(delta) || delta === 0 || scale <= 0) return 'transparent';
  const alpha = Math.min(1, Math.abs(delta) / scale);
  return `rgba(${delta > 0 ? MORE : LESS}, ${(0.85 * alpha).toFixed(3)})`;
}

/** nats with a sign: "+0.120", "−1.500". */
export function signedNats(x: number): string {
  return `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(3)}`;
}

/** What a token's tooltip and accessible name say. */
export function tokenDescription(t: { text: string; base: number; adapter: number; delta: number }): string {
  const p = (lp: number) => `${(100 * Math.exp(lp)).toPrecision(3)}%`;
  const change = t.delta > 0 ? 'likelier with the adapter' : t.delta < 0 ? 'less likely with the adapter' : 'unchanged';
  return `${JSON.stringify(t.text)}: p ${p(t.base)} → ${p(t.adapter)} (log p ${t.base.toFixed(3)} → ${t.adapter.toFixed(3)}, ${signedNats(t.delta)} nats, ${change})`;
}

/** One line for an action's sum: how much likelier (or less) the adapter made the whole reply. */
export function actionSummary(a: { base: number; adapter: number; delta: number; tokens: readonly unknown[] }): string {
  const factor = Math.exp(a.delta);
  const times = factor >= 1 ? `${factor.toPrecision(3)}× likelier` : `${(1 / factor).toPrecision(3)}× less likely`;
  return `${signedNats(a.delta)} nats over ${a.tokens.length} token${a.tokens.length === 1 ? '' : 's'} (log p ${a.base.toFixed(2)} → ${a.adapter.toFixed(2)}): the reply is ${times} with the adapter`;
}
