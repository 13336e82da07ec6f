/**
 * The split chooser's options (Play, Watch, Evaluate): each split with its question count in the dataset, and a
 * split with no questions offered but disabled ("heldout (no questions)"), so nobody starts an episode or a run on
 * an empty split. Before the dataset is loaded (`questions` null) every split is offered, without counts.
 * Pure, unit-tested (tests/ui/components/split-choices.test.ts).
 */
import { SPLITS, type SplitSelector } from '../../data/types.ts';
import type { Choice } from './ChoiceField.tsx';

export function splitCounts(questions: ReadonlyArray<{ split: string }> | null): Record<SplitSelector, number> | null {
  if (!questions) return null;
  const counts: Record<SplitSelector, number> = { train: 0, eval: 0, heldout: 0, all: questions.length };
  for (const q of questions) if (q.split === 'train' || q.split === 'eval' || q.split === 'heldout') counts[q.split]++;
  return counts;
}

/** `order`: where 'all' goes (Play and Watch list it first, Evaluate last). */
export function splitChoices(questions: ReadonlyArray<{ split: string }> | null, order: 'all-first' | 'all-last' = 'all-first'): Array<Choice<SplitSelector>> {
  const counts = splitCounts(questions);
  const values: SplitSelector[] = order === 'all-first' ? ['all', ...SPLITS] : [...SPLITS, 'all'];
  return values.map((value) => {
    if (!counts) return { value };
    const n = counts[value];
    return n === 0 ? { value, label: `${value} (no questions)`, disabled: true } : { value, label: `${value} (${n.toLocaleString('en-US')} question${n === 1 ? '' : 's'})` };
  });
}
