/**
 * The question card of a free-play episode (a person's own SQLite file): what free play is, the database and the
 * step budget. No difficulty, split or question id: a file has none of them (its one placeholder question only
 * carries them because every question does), so showing "difficulty easy · split train" would say something false.
 */
import type { QuestionSummary } from '../../workers/env-protocol.ts';

export function FreePlayCard({ question, dataset, stepsLeft, budget }: { question: QuestionSummary; dataset: string; stepsLeft: number; budget: number }) {
  return (
    <section className="panel question-card" aria-label="Question">
      <p className="question-text">{question.question}</p>
      <dl className="question-meta">
        <div>
          <dt>free play on</dt>
          <dd>{question.dbId}</dd>
        </div>
        <div>
          <dt>kept as</dt>
          <dd>{dataset}</dd>
        </div>
      </dl>
      <label className="budget">
        Steps left: {stepsLeft} of {budget}
        <meter min={0} max={budget} value={stepsLeft} low={Math.ceil(budget * 0.3)} optimum={budget} />
      </label>
    </section>
  );
}
