/** The episode's question with its database, difficulty, split and a step-budget meter. */
import type { QuestionSummary } from '../../workers/env-protocol.ts';
import { tip } from '../help/glossary.ts';

export function QuestionCard({ question, stepsLeft, budget }: { question: QuestionSummary; stepsLeft: number; budget: number }) {
  return (
    <section className="panel question-card" aria-label="Question">
      <p className="question-text">{question.question}</p>
      <dl className="question-meta">
        <div>
          <dt>database</dt>
          <dd>{question.dbId}</dd>
        </div>
        <div title={tip('difficulty')}>
          <dt>difficulty</dt>
          <dd className={`difficulty ${question.difficulty}`}>{question.difficulty}</dd>
        </div>
        <div title={tip('split')}>
          <dt>split</dt>
          <dd>{question.split}</dd>
        </div>
        <div title={tip('questionId')}>
          <dt>id</dt>
          <dd>{question.id}</dd>
        </div>
      </dl>
      <label className="budget" title={tip('stepsLeft')}>
        Steps left: {stepsLeft} of {budget}
        <meter min={0} max={budget} value={stepsLeft} low={Math.ceil(budget * 0.3)} optimum={budget} />
      </label>
    </section>
  );
}
