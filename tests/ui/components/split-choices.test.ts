/** The split chooser's options (src/ui/components/split-choices.ts): counts, and empty splits disabled. */
import { describe, expect, it } from 'vitest';
import { splitChoices, splitCounts } from '../../../src/ui/components/split-choices.ts';

const DEMO = [{ split: 'train' }, { split: 'train' }, { split: 'eval' }];

describe('splitChoices', () => {
  it('offers every split with its count, and an empty one disabled', () => {
    expect(splitChoices(DEMO)).toEqual([
      { value: 'all', label: 'all (3 questions)' },
      { value: 'train', label: 'train (2 questions)' },
      { value: 'eval', label: 'eval (1 question)' },
      { value: 'heldout', label: 'heldout (no questions)', disabled: true },
    ]);
  });
  it("puts 'all' last where asked (Evaluate, Watch)", () => {
    expect(splitChoices(DEMO, 'all-last').map((c) => c.value)).toEqual(['train', 'eval', 'heldout', 'all']);
  });
  it('before the dataset is loaded, every split is offered without counts', () => {
    expect(splitChoices(null)).toEqual([{ value: 'all' }, { value: 'train' }, { value: 'eval' }, { value: 'heldout' }]);
  });
  it('counts only known splits', () => {
    expect(splitCounts([...DEMO, { split: 'odd' }])).toEqual({ train: 2, eval: 1, heldout: 0, all: 4 });
  });
});
