/**
 * The split report's diff (src/data/split-diff.ts) on a synthetic dataset whose moves are known by construction:
 * a count of 9 and its text '9' (joined by the answer link), two paraphrased questions (joined by the text link),
 * and a question that shares nothing.
 */
import { describe, expect, it } from 'vitest';
import { formatSplitDiff, splitDiff, type DiffInput } from '../../src/data/split-diff.ts';
import { PREVIOUS_SPLIT_RULE, sqlOnlySplit, sqlenvSplits } from '../../src/data/split.ts';

const curated = ['zoo'];

/** The first `SELECT <tag> FROM t<k>` whose SQL-only split is `side`. */
function sqlOn(tag: string, side: 'train' | 'eval'): string {
  for (let k = 0; k < 100; k++) if (sqlOnlySplit('zoo', `SELECT ${tag} FROM t${k}`, curated) === side) return `SELECT ${tag} FROM t${k}`;
  throw new Error(`no SQL on ${side} for ${tag}`);
}

const questions: DiffInput[] = [
  { id: 'q1', dbId: 'zoo', question: 'How many pets?', gold: sqlOn('a', 'train'), goldRows: [[9]] },
  { id: 'q2', dbId: 'zoo', question: 'What is the oldest age?', gold: sqlOn('b', 'eval'), goldRows: [['9']] },
  { id: 'q3', dbId: 'zoo', question: 'Which pets are older than any cat?', gold: sqlOn('c', 'train'), goldRows: [['Rex']] },
  { id: 'q4', dbId: 'zoo', question: 'What pets are older than any of the cats?', gold: sqlOn('d', 'eval'), goldRows: [['Rex'], ['Tom']] },
  { id: 'q5', dbId: 'zoo', question: 'List the owners.', gold: sqlOn('e', 'eval'), goldRows: [['Ann']] },
  { id: 'f1', dbId: 'farm', question: 'List the owners.', gold: 'SELECT 1', goldRows: [[1]] },
  { id: 'f2', dbId: 'farm', question: 'Show the owners!', gold: 'SELECT 2', goldRows: [[2]] },
];

describe('splitDiff', () => {
  const diff = splitDiff(questions, curated);
  const before = sqlenvSplits(questions, curated, PREVIOUS_SPLIT_RULE);
  const after = sqlenvSplits(questions, curated);

  it('lists exactly the questions whose side changed, with their old and new sides', () => {
    const changed = questions.flatMap((q, i) => (before[i] === after[i] ? [] : [{ id: q.id, dbId: q.dbId, from: before[i], to: after[i] }]));
    expect(diff.moved).toEqual(changed);
    // Each joined pair started on two sides (by construction), so exactly one of each pair moved; q5 stays.
    expect(changed).toHaveLength(2);
    expect(changed.filter((m) => m.id === 'q1' || m.id === 'q2')).toHaveLength(1);
    expect(changed.filter((m) => m.id === 'q3' || m.id === 'q4')).toHaveLength(1);
    const moves = { trainToEval: changed.filter((m) => m.from === 'train').length, evalToTrain: changed.filter((m) => m.from === 'eval').length };
    expect(diff.movedByDatabase).toEqual({ zoo: moves });
    expect(diff.groups).toEqual({ before: 5, after: 3 });
  });

  it('names the link that joined each changed group', () => {
    const links = diff.changedGroups.flatMap((g) => g.links.map((l) => `${l.kind}:${l.ids.join('~')}`)).sort();
    expect(links).toEqual(['answer:q1~q2', 'question:q3~q4']);
  });

  it('lists every paraphrase set, in every database, marking those only the text joins', () => {
    expect(diff.paraphraseSets).toEqual([
      { dbId: 'zoo', words: 'any cat older pet', ids: ['q3', 'q4'], onlyByText: true },
      { dbId: 'farm', words: 'owner', ids: ['f1', 'f2'], onlyByText: true },
    ]);
    const text = formatSplitDiff(diff, (id) => `text of ${id}`);
    expect(text).toContain('moved: 2 questions');
    expect(text).toContain('link question: q3 ~ q4');
    expect(text).toContain('* farm [owner]');
  });
});
