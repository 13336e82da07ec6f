/**
 * The run on screen: its title and whether it is saved, exports, the summary figures (success rate, mean return,
 * mean of each reward component, mean steps), the charts (loaded lazily with chart.js), the figures by difficulty
 * and by database as tables, and the episodes, any of which opens its transcript.
 */
import { lazy, Suspense } from 'react';
import type { GroupSummary } from '../../eval/evaluate.ts';
import { exportFile, type ExportFormat } from '../../eval/export.ts';
import { useStore } from '../store/store.ts';
import { downloadFile } from './download.ts';
import { EpisodeDialog } from './EpisodeDialog.tsx';
import { EpisodeTable } from './EpisodeTable.tsx';
import { duration, fixed, groupRows, percent, runTitle } from './figures.ts';
import { usePolicyLabel } from './usePolicyLabel.ts';
import { DEFAULT_ENV_CONFIG } from '../../env/types.ts';
import { plain, rewardEquation } from '../components/reward-terms.ts';
import { InfoTip } from '../components/InfoTip.tsx';
import { tip } from '../help/glossary.ts';
import '../components/reward-parts.css';

const RunCharts = lazy(() => import('./RunCharts.tsx'));

function Figure({ label, value, hint }: { label: string; value: string; hint?: string }) {
  return (
    <div>
      <dt>
        {label}
        {hint !== undefined && <InfoTip topic={label.toLowerCase()}>{hint}</InfoTip>}
      </dt>
      <dd>{value}</dd>
    </div>
  );
}

function GroupTable({ caption, label, groups }: { caption: string; label: string; groups: Record<string, GroupSummary> }) {
  return (
    <div className="table-scroll">
      <table>
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">{label}</th>
            <th scope="col" className="number">
              Episodes
            </th>
            <th scope="col" className="number">
              Success<InfoTip topic="success">{tip('successRate')}</InfoTip>
            </th>
            <th scope="col" className="number">
              Mean return<InfoTip topic="mean return">{tip('meanReturn')}</InfoTip>
            </th>
            <th scope="col" className="number">
              Mean steps<InfoTip topic="mean steps">{tip('meanSteps')}</InfoTip>
            </th>
          </tr>
        </thead>
        <tbody>
          {groupRows(groups).map((g) => (
            <tr key={g.name}>
              <th scope="row">{g.name}</th>
              <td className="number">{g.episodes}</td>
              <td className="number">{percent(g.success_rate)}</td>
              <td className="number">{fixed(g.mean_return)}</td>
              <td className="number">{fixed(g.mean_steps, 2)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function RunResults() {
  const shown = useStore((s) => s.shownRun);
  const openEpisode = useStore((s) => s.openEpisode);
  const setOpenEpisode = useStore((s) => s.setOpenEpisode);
  const policyLabel = usePolicyLabel();
  if (!shown) return null;
  const { summary, records } = shown.run;
  const exportAs = (format: ExportFormat) => downloadFile(exportFile(format, summary, records));
  const opened = openEpisode !== null ? records[openEpisode] : undefined;
  // Returns are sums of weighted rewards, so the mean return is the weighted sum of the mean parts (when the run
  // used the environment's default weights; a run with other weights shows no equation).
  const meanEquation = rewardEquation(summary.mean_components, DEFAULT_ENV_CONFIG.weights, summary.mean_return);

  return (
    <section className="panel run-results" aria-labelledby="run-heading">
      <div className="results-head">
        <div>
          <h3 id="run-heading">{runTitle(summary, policyLabel)}</h3>
          <p className="meta">
            seed {summary.seed} · {new Date(summary.createdAt).toLocaleString()} · took {duration(summary.durationMs)} · {shown.saved ? 'saved in this browser' : 'not saved'}
          </p>
        </div>
        <div className="button-row" role="group" aria-label="Export this run">
          <button type="button" onClick={() => exportAs('jsonl')}>
            Export JSONL
          </button>
          <button type="button" onClick={() => exportAs('csv')}>
            Export CSV
          </button>
        </div>
      </div>

      <dl className="figures summary-figures" aria-label="Summary">
        <Figure label="Success rate" value={percent(summary.success_rate)} hint={tip('successRate')} />
        <Figure label="Mean return" value={plain(summary.mean_return)} hint={tip('meanReturn')} />
        <Figure label="Mean correctness" value={plain(summary.mean_components.correctness)} hint={tip('meanCorrectness')} />
        <Figure label="Mean progress" value={plain(summary.mean_components.progress)} hint={tip('meanProgress')} />
        <Figure label="Mean operational" value={plain(summary.mean_components.operational)} hint={tip('meanOperational')} />
        <Figure label="Mean steps" value={fixed(summary.mean_steps, 2)} hint={tip('meanSteps')} />
        <Figure label="Episodes" value={String(summary.episodes)} hint={tip('episodes')} />
      </dl>
      {meanEquation !== null && (
        <p className="reward-equation">
          Mean return {plain(summary.mean_return)} = {meanEquation}
        </p>
      )}

      <Suspense fallback={<p className="meta">Loading charts…</p>}>
        <RunCharts summary={summary} returns={records.map((r) => r.episodeReturn)} />
      </Suspense>

      <details className="group-tables">
        <summary>Figures by difficulty and by database</summary>
        <div className="group-grid">
          <GroupTable caption="By difficulty" label="Difficulty" groups={summary.by_difficulty} />
          <GroupTable caption="By database" label="Database" groups={summary.by_database} />
        </div>
      </details>

      <EpisodeTable records={records} />
      {opened && openEpisode !== null && <EpisodeDialog key={openEpisode} record={opened} index={openEpisode} onClose={() => setOpenEpisode(null)} />}
    </section>
  );
}
