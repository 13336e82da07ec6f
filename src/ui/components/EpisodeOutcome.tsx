/** The end of an episode: success or failure, the gold answer, and the gold SQL behind a reveal. */
import type { Question } from '../../data/types.ts';
import { ResultTable } from './ResultTable.tsx';

export function EpisodeOutcome({ success, truncated, question }: { success: boolean; truncated: boolean; question: Question }) {
  const free = question.freePlay === true;
  return (
    <section className={`panel outcome ${free ? 'free' : success ? 'success' : 'failure'}`} aria-label="Episode result" role="status">
      <h3>{free ? 'Episode over (free play: no gold answer)' : success ? 'Success: the answer is correct' : truncated ? 'Failure: no steps left before an answer' : 'Failure: the answer is not correct'}</h3>
      {!free && (
        <>
          <ResultTable caption="Gold answer" columns={question.goldResult.columns} rows={question.goldResult.rows.slice(0, 50)} totalRows={question.goldResult.rows.length} />
          <details>
            <summary>Reveal gold SQL</summary>
            <pre className="sql">{question.gold}</pre>
          </details>
        </>
      )}
    </section>
  );
}
