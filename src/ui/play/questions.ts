/**
 * Finding a question to play: the search box of the "by question" picker. Pure, unit-tested
 * (tests/ui/play-questions.test.ts). Every word of the query must appear in the question's id, database,
 * difficulty, split or text (case-insensitive), so "car easy" finds easy car_1 questions.
 */
import type { QuestionSummary } from '../../workers/env-protocol.ts';

export type QuestionChoice = Pick<QuestionSummary, 'id' | 'dbId' | 'question' | 'difficulty' | 'split'>;

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
