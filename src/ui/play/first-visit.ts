/**
 * The first-visit card's example question: the easiest question of the dataset, chosen the same way every time, so
 * a newcomer starts on something they can solve (Play otherwise opens on a random question, maybe an extra-hard one).
 * Pure, unit-tested (tests/ui/play-first-visit.test.ts).
 *
 * The choice: the lowest difficulty the dataset has (easy, then medium, …), then the shortest question text (short
 * questions read fastest), ties broken by dataset order. Free-play questions have no gold answer and are never chosen.
 */
import { DIFFICULTIES } from '../../data/types.ts';
import type { QuestionChoice } from './questions.ts';

export function exampleQuestion<Q extends QuestionChoice & { freePlay?: boolean }>(questions: readonly Q[]): Q | null {
  let best: Q | null = null;
  let bestRank = Infinity;
  for (const q of questions) {
    if (q.freePlay === true) continue;
    const rank = DIFFICULTIES.indexOf(q.difficulty);
    if (best === null || rank < bestRank || (rank === bestRank && q.question.length < best.question.length)) {
      best = q;
      bestRank = rank;
    }
  }
  return best;
}
