/**
 * The first-visit card's example question: the easiest question of the dataset, chosen the same way every time, so
 * a newcomer starts on something they can solve (Play otherwise opens on a random question, maybe an extra-hard one).
 * Pure, unit-tested (tests/ui/play-first-visit.test.ts). Also what the card says of that question once it is on
 * screen (`exampleStatus`): being played, or over — solved, answered wrongly, or out of steps — never "playing" once
 * the episode has ended (tests/ui/play/first-visit-status.test.ts).
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

/**
 * Where the newcomer stands with the example question: not on screen ('offer'), being played ('playing'), or played
 * to its end — answered correctly ('solved'), answered wrongly ('missed'), or out of steps ('out-of-steps').
 */
export type ExampleStatus = 'offer' | 'playing' | 'solved' | 'missed' | 'out-of-steps';

/** The episode on screen, as far as the card needs it. */
export interface EpisodeOnScreen {
  dataset: string;
  question: { id: string };
  done: boolean;
  success: boolean;
  truncated: boolean;
}

export function exampleStatus(exampleId: string, dataset: string, episode: EpisodeOnScreen | null): ExampleStatus {
  if (episode === null || episode.dataset !== dataset || episode.question.id !== exampleId) return 'offer';
  if (!episode.done) return 'playing';
  if (episode.success) return 'solved';
  return episode.truncated ? 'out-of-steps' : 'missed';
}

/** What the card says of the example in each status (none while it is only offered: the button says it). */
export const EXAMPLE_STATUS_TEXT: Record<Exclude<ExampleStatus, 'offer'>, string> = {
  playing: 'You are playing it now.',
  solved: 'You solved it, and the episode is over. Pick another question under New episode, or close this guide.',
  missed: 'That answer was not right, and answering ended the episode. Try it again: look at the tables, query, then answer.',
  'out-of-steps': 'The steps ran out before an answer, which ended the episode. Try it again, and answer before they run out.',
};
