/**
 * Finding a question to play: the search box of the "by question" picker, and the end card's next question. Pure, unit-tested
 * (tests/ui/play-questions.test.ts). Every word of the query must appear in the question's id, database,
 * difficulty, split or text (case-insensitive), so "car easy" finds easy car_1 questions.
 */
import type { Difficulty, SplitSelector } from '../../data/types.ts';
import type { QuestionSummary } from '../../workers/env-protocol.ts';

export type QuestionChoice = Pick<QuestionSummary, 'id' | 'dbId' | 'question' | 'difficulty' | 'split'>;

/** A free-play file's dataset: questions, and every one of them free play (no gold answer). */
export function isFreePlayOnly(questions: ReadonlyArray<{ freePlay?: boolean }>): boolean {
  return questions.length > 0 && questions.every((q) => q.freePlay === true);
}

/**
 * The question the end card's "Next question" plays: the next one after `currentId` in dataset order that fits the
 * split and difficulty (wrapping round), never the current one; null when no other fits. Deterministic, so the
 * button walks through the questions instead of drawing the same one again.
 */
export function nextQuestion<Q extends QuestionChoice>(questions: readonly Q[], currentId: string, filter: { split: SplitSelector; difficulty: Difficulty | 'any' }): Q | null {
  const fits = (q: Q): boolean => q.id !== currentId && (filter.split === 'all' || q.split === filter.split) && (filter.difficulty === 'any' || q.difficulty === filter.difficulty);
  const at = questions.findIndex((q) => q.id === currentId);
  for (let k = 1; k <= questions.length; k++) {
    const q = questions[(at + k + questions.length) % questions.length];
    if (fits(q)) return q;
  }
  return null;
}

function haystack(q: QuestionChoice): string {
  return `${q.id} ${q.dbId} ${q.difficulty} ${q.split} ${q.question}`.toLowerCase();
}

export function filterQuestions<Q extends QuestionChoice>(questions: readonly Q[], query: string): Q[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return [...questions];
  return questions.filter((q) => {
    const text = haystack(q);
    return words.every((w) => text.includes(w));
  });
}

/** One line per question in the picker: id, database and difficulty, then the question (cut to `max` chars). */
export function questionLabel(q: QuestionChoice, max = 90): string {
  const text = q.question.length > max ? `${q.question.slice(0, max - 1)}…` : q.question;
  return `${q.id} · ${q.dbId} · ${q.difficulty} — ${text}`;
}
