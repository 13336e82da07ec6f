/**
 * The episode's question with its database, difficulty, split and a step-budget meter. What each figure means is
 * behind an InfoTip ("?"), which touch screens and keyboards reach, not a hover-only `title`.
 */
import type { QuestionSummary } from '../../workers/env-protocol.ts';
import { tip } from '../help/glossary.ts';
import { InfoTip } from './InfoTip.tsx';
import './question-card.css';

export function QuestionCard({ question, stepsLeft, budget }: { question: QuestionSummary; stepsLeft: number; budget: number }) {
  return (
    <section className="panel question-card" aria-label="Question">
      <p className="question-text">{question.question}</p>
      <dl className="question-meta">
        <div>
          <dt>database</dt>
          <dd>{question.dbId}</dd>
        </div>
        <div>
          <dt>
            difficulty<InfoTip topic="difficulty">{tip('difficulty')}</InfoTip>
          </dt>
          <dd className={`difficulty ${question.difficulty}`}>{question.difficulty}</dd>
        </div>
        <div>
          <dt>
            split<InfoTip topic="the split">{tip('split')}</InfoTip>
          </dt>
          <dd>{question.split}</dd>
        </div>
        <div>
          <dt>
            id<InfoTip topic="the question id">{tip('questionId')}</InfoTip>
          </dt>
          <dd>{question.id}</dd>
        </div>
      </dl>
      <div className="budget-row">
        <label className="budget">
          Steps left: {stepsLeft} of {budget}
          <meter min={0} max={budget} value={stepsLeft} low={Math.ceil(budget * 0.3)} optimum={budget} />
        </label>
        <InfoTip topic="the budget">{tip('stepsLeft')}</InfoTip>
      </div>
    </section>
  );
}
