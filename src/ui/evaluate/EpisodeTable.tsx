/**
 * A run's episodes, one row each: question, database, difficulty, outcome, return and steps, with a button that
 * opens the transcript and a link that replays the episode in Watch (same policy, question and seed). A filter
 * narrows the rows to successes or failures. Question text is rendered as text. On a phone the table fits the
 * width: database, difficulty and steps move under the question (evaluate.css, `.wide-only` / `.narrow-facts`).
 */
import { useState } from 'react';
import type { EpisodeRecord } from '../../eval/transcript.ts';
import { routeHash } from '../router.ts';
import { useStore } from '../store/store.ts';
import { fixed } from './figures.ts';

type Filter = 'all' | 'success' | 'failure';

export function EpisodeTable({ records }: { records: readonly EpisodeRecord[] }) {
  const open = useStore((s) => s.setOpenEpisode);
  const [filter, setFilter] = useState<Filter>('all');
  const rows = records.map((record, index) => ({ record, index })).filter(({ record }) => filter === 'all' || record.success === (filter === 'success'));
  const successes = records.filter((r) => r.success).length;

  return (
    <section className="episodes" aria-labelledby="episodes-heading">
      <div className="episodes-head">
        <h3 id="episodes-heading">Episodes</h3>
        <label className="picker">
          Show
          <select value={filter} onChange={(e) => setFilter(e.target.value as Filter)}>
            <option value="all">all ({records.length})</option>
            <option value="success">successes ({successes})</option>
            <option value="failure">failures ({records.length - successes})</option>
          </select>
        </label>
      </div>
      <div className="table-scroll">
        <table className="episode-table">
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">Question</th>
              <th scope="col" className="wide-only">
                Database
              </th>
              <th scope="col" className="wide-only">
                Difficulty
              </th>
              <th scope="col">Outcome</th>
              <th scope="col" className="number">
                Return
              </th>
              <th scope="col" className="number wide-only">
                Steps
              </th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map(({ record, index }) => (
              <tr key={index}>
                <td className="number">{index + 1}</td>
                <td className="question-cell">
                  <span className="question-text" title={record.question}>
                    {record.question}
                  </span>
                  <span className="meta"> {record.questionId}</span>
                  <span className="meta narrow-facts">
                    {record.dbId} · {record.difficulty} · {record.steps} step{record.steps === 1 ? '' : 's'}
                  </span>
                </td>
                <td className="wide-only">{record.dbId}</td>
                <td className="wide-only">
                  <span className={`difficulty ${record.difficulty}`}>{record.difficulty}</span>
                </td>
                <td>
                  <span className={`verdict ${record.success ? 'good' : 'bad'}`}>{record.success ? 'success' : record.truncated ? 'no answer' : 'wrong'}</span>
                </td>
                <td className="number">{fixed(record.episodeReturn)}</td>
                <td className="number wide-only">{record.steps}</td>
                <td className="row-actions">
                  <button type="button" onClick={() => open(index)} aria-label={`Transcript of episode ${index + 1}`}>
                    Transcript
                  </button>
                  <a href={routeHash('watch', { dataset: record.dataset, policy: record.policy, q: record.questionId, seed: record.seed })} aria-label={`Watch episode ${index + 1} again`}>
                    Watch
                  </a>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
