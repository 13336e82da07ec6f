/**
 * Aligning two transcripts step by step, so Compare can show them side by side with the differences marked. Pure;
 * unit-tested (tests/ui/compare/align.test.ts).
 *
 * How to think about it: it is a diff of two action sequences. The longest common subsequence of actions (the same
 * canonical action text) is lined up; between two such anchors, the remaining steps of A and B are paired in order
 * as 'different' rows, and whatever is left over on the longer side stands alone ('onlyA' / 'onlyB'). An anchored
 * pair is 'same' when the environment also answered alike (outcome, reward and observation, the steps-left line
 * aside) and 'changed' otherwise (for example a repeat in one episode that is new in the other).
 */
import type { TranscriptStep } from '../../eval/transcript.ts';

export type AlignedKind = 'same' | 'changed' | 'different' | 'onlyA' | 'onlyB';

export interface AlignedRow {
  /** Index of A's step on this row, or null for a gap. */
  a: number | null;
  b: number | null;
  kind: AlignedKind;
}

/** What identifies an action across episodes: its canonical text, whitespace collapsed. */
export function actionKey(step: Pick<TranscriptStep, 'actionText'>): string {
  return step.actionText.trim().replace(/\s+/g, ' ');
}

/**
 * The observation without the echoed action (compared on its own) and the lines that depend on the step's position
 * (steps left, the end-of-budget note).
 */
function observationBody(step: TranscriptStep): string {
  return step.observation
    .split('\n')
    .filter((line, i) => !(i === 0 && line.startsWith('> ')) && !/^Steps left: \d+$/.test(line) && !line.startsWith('No steps left:'))
    .join('\n');
}

/** The environment answered the same action alike in both episodes. */
export function sameResponse(a: TranscriptStep, b: TranscriptStep): boolean {
  return a.outcome === b.outcome && Math.abs(a.reward - b.reward) < 1e-9 && observationBody(a) === observationBody(b);
}

/** Pairs of indices of the longest common subsequence of `a` and `b` (earliest match first on ties). */
export function commonSubsequence(a: readonly string[], b: readonly string[]): Array<[number, number]> {
  // lcs[i][j]: length of the longest common subsequence of a[i:] and b[j:].
  const lcs = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  }
  const pairs: Array<[number, number]> = [];
  for (let i = 0, j = 0; i < a.length && j < b.length; ) {
    if (a[i] === b[j]) pairs.push([i++, j++]);
    else if (lcs[i + 1][j] >= lcs[i][j + 1]) i++;
    else j++;
  }
  return pairs;
}

export function alignSteps(a: readonly TranscriptStep[], b: readonly TranscriptStep[]): AlignedRow[] {
  const anchors = commonSubsequence(a.map(actionKey), b.map(actionKey));
  const rows: AlignedRow[] = [];
  const gap = (fromA: number, toA: number, fromB: number, toB: number): void => {
    const paired = Math.min(toA - fromA, toB - fromB);
    for (let k = 0; k < paired; k++) rows.push({ a: fromA + k, b: fromB + k, kind: 'different' });
    for (let i = fromA + paired; i < toA; i++) rows.push({ a: i, b: null, kind: 'onlyA' });
    for (let j = fromB + paired; j < toB; j++) rows.push({ a: null, b: j, kind: 'onlyB' });
  };
  let nextA = 0;
  let nextB = 0;
  for (const [i, j] of anchors) {
    gap(nextA, i, nextB, j);
    rows.push({ a: i, b: j, kind: sameResponse(a[i], b[j]) ? 'same' : 'changed' });
    nextA = i + 1;
    nextB = j + 1;
  }
  gap(nextA, a.length, nextB, b.length);
  return rows;
}
