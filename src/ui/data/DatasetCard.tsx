/**
 * One dataset on the Data view: what it is, its databases and questions by split and difficulty, the databases
 * behind a disclosure, its licence, and what can be done with it (use it everywhere, play it, remove it when it was
 * made in this browser). Dataset text (names, descriptions) is rendered as text, never as HTML.
 */
import { useState } from 'react';
import type { StoredDatasetInfo } from '../../data/dataset-store.ts';
import { DIFFICULTIES } from '../../data/types.ts';
import { ClippedText } from '../components/ClippedText.tsx';
import { routeHash } from '../router.ts';
import type { DatasetSummary } from '../../workers/env-protocol.ts';
import { countByDatabase, countBySplit, formatBytes, splitsPresent } from './counts.ts';
import { InfoTip } from '../components/InfoTip.tsx';
import { tip } from '../help/glossary.ts';

export type DatasetOrigin = 'built-in' | 'spider' | 'free-play';

const ORIGIN_LABELS: Record<DatasetOrigin, string> = { 'built-in': 'built with the app', spider: 'imported Spider', 'free-play': 'free play' };

export interface DatasetCardProps {
  summary: DatasetSummary;
  origin: DatasetOrigin;
  stored: StoredDatasetInfo | null;
  inUse: boolean;
  onUse: () => void;
  onRemove?: () => void;
}

function SplitTable({ summary }: { summary: DatasetSummary }) {
  const rows = countBySplit(summary);
  return (
    <div className="table-scroll">
      <table className="count-table">
        <caption>
          Questions by split and difficulty
          <InfoTip topic="splits and difficulty">
            {tip('split')} {tip('difficulty')}
          </InfoTip>
        </caption>
        <thead>
          <tr>
            <th scope="col">split</th>
            {DIFFICULTIES.map((d) => (
              <th key={d} scope="col" className="number">
                {d}
              </th>
            ))}
            <th scope="col" className="number">
              total
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.split} className={row.split === 'all' ? 'total-row' : undefined}>
              <th scope="row">{row.split}</th>
              {DIFFICULTIES.map((d) => (
                <td key={d} className="number">
                  {row.byDifficulty[d]}
                </td>
              ))}
              <td className="number">{row.total}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function DatabaseTable({ summary }: { summary: DatasetSummary }) {
  const splits = splitsPresent(summary);
  return (
    <div className="table-scroll">
      <table className="count-table">
        <thead>
          <tr>
            <th scope="col">database</th>
            <th scope="col" className="number">
              tables
            </th>
            {splits.map((s) => (
              <th key={s} scope="col" className="number">
                {s}
              </th>
            ))}
            <th scope="col" className="number">
              questions
            </th>
          </tr>
        </thead>
        <tbody>
          {countByDatabase(summary).map((row) => (
            <tr key={row.id}>
              <th scope="row">
                <code>{row.id}</code>
              </th>
              <td className="number">{row.tables}</td>
              {splits.map((s) => (
                <td key={s} className="number">
                  {row.bySplit[s]}
                </td>
              ))}
              <td className="number">{row.total}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function DatasetCard({ summary, origin, stored, inUse, onUse, onRemove }: DatasetCardProps) {
  const [confirming, setConfirming] = useState(false);
  const headingId = `dataset-${summary.name}`;
  const free = origin === 'free-play';
  return (
    <article className="panel dataset-card" aria-labelledby={headingId}>
      <header className="dataset-head">
        <h3 id={headingId}>{summary.name}</h3>
        <span className={`badge origin-${origin}`}>{ORIGIN_LABELS[origin]}</span>
        {inUse && <span className="badge in-use">in use</span>}
      </header>
      {summary.description && !free && <p className="dataset-description">{summary.description}</p>}
      <dl className="figures dataset-figures">
        {!free && (
          <div>
            <dt>
              Databases<InfoTip topic="databases">{tip('datasetDatabases')}</InfoTip>
            </dt>
            <dd>{summary.databases.length}</dd>
          </div>
        )}
        <div>
          <dt>{free ? 'Tables' : <>Questions<InfoTip topic="questions">{tip('datasetQuestions')}</InfoTip></>}</dt>
          <dd>{free ? (summary.databases[0]?.tables.length ?? 0) : summary.questions.length}</dd>
        </div>
        {stored && (
          <div>
            <dt>
              Stored in this browser<InfoTip topic="storage">{tip('datasetStored')}</InfoTip>
            </dt>
            <dd className="small">{formatBytes(stored.bytes)}</dd>
          </div>
        )}
      </dl>
      {free ? (
        <p className="free-play-note">
          Free play on <code>{stored?.source ?? summary.databases[0]?.id}</code>: no questions and no gold answer, so there is no correctness reward — you explore with Describe, Sample and Query.
        </p>
      ) : (
        <>
          <SplitTable summary={summary} />
          <details className="databases">
            <summary>
              Databases ({summary.databases.length}) and their questions
            </summary>
            <DatabaseTable summary={summary} />
          </details>
        </>
      )}
      {free && (
        <p className="meta">
          Tables: <ClippedText text={summary.databases[0]?.tables.join(', ') ?? ''} />
        </p>
      )}
      <div className="card-actions">
        {/* A free-play file opens in Play alone (its own link): it has no questions for Train, Evaluate or Watch. */}
        <a className="button-link primary" href={routeHash('play', free ? { free: summary.name } : { dataset: summary.name })} aria-label={`Play ${summary.name}`}>
          Play
        </a>
        {!free && (
          <button type="button" onClick={onUse} disabled={inUse} aria-label={`Use ${summary.name} in every view`}>
            {inUse ? 'In use in every view' : 'Use in every view'}
          </button>
        )}
        {onRemove &&
          (confirming ? (
            <span className="confirm" role="group" aria-label={`Remove ${summary.name}?`}>
              <span>Remove from this browser?</span>
              <button type="button" className="danger" onClick={onRemove} aria-label={`Yes, remove ${summary.name}`}>
                Remove
              </button>
              <button type="button" onClick={() => setConfirming(false)} aria-label={`Keep ${summary.name}`}>
                Keep
              </button>
            </span>
          ) : (
            <button type="button" onClick={() => setConfirming(true)} aria-label={`Remove ${summary.name}`}>
              Remove…
            </button>
          ))}
      </div>
      {summary.license && <p className="license">Licence: {summary.license}</p>}
      {stored && (
        <p className="meta">
          Made from {stored.source} on {new Date(stored.createdAt).toLocaleString()}.
        </p>
      )}
    </article>
  );
}
