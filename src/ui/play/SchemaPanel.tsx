/**
 * The episode's tables. Picking one (a radio, so arrow keys move through them) chooses what Describe and Sample act
 * on; each of those is a real environment step. A table already described or sampled in this episode says so, since
 * doing it again is a repeat (a small penalty).
 */
import { useStore } from '../store/store.ts';
import type { TranscriptStep } from '../../eval/transcript.ts';
import { clipText, DISPLAY_LIMITS } from '../components/cell-display.ts';
import { InfoTip } from '../components/InfoTip.tsx';
import { tip } from '../help/glossary.ts';

/** A table name as shown (a free-play file's names can be any length); the buttons act on the whole name. */
function shownName(name: string): string {
  const clip = clipText(name, DISPLAY_LIMITS.cellChars);
  return clip.cut ? `${clip.shown}…` : name;
}

function explored(steps: readonly TranscriptStep[], type: 'DESCRIBE' | 'SAMPLE'): Set<string> {
  const seen = new Set<string>();
  for (const s of steps) if (s.action.type === type && s.outcome !== 'error') seen.add(s.action.table.toLowerCase());
  return seen;
}

export function SchemaPanel() {
  const tables = useStore((s) => s.playEpisode?.tables);
  const steps = useStore((s) => s.playEpisode?.steps);
  const dbId = useStore((s) => s.playEpisode?.question.dbId);
  const over = useStore((s) => s.playEpisode?.done ?? true);
  const busy = useStore((s) => s.playBusy !== null);
  const selected = useStore((s) => s.playTable);
  const select = useStore((s) => s.selectPlayTable);
  const describe = useStore((s) => s.playDescribe);
  const sample = useStore((s) => s.playSample);
  if (!tables || !steps) return null;
  const described = explored(steps, 'DESCRIBE');
  const sampled = explored(steps, 'SAMPLE');
  const blocked = busy || over || selected === null;
  return (
    <section className="panel play-schema" aria-labelledby="play-schema-title">
      <h3 id="play-schema-title">
        Tables <span className="meta">of {dbId}</span>
      </h3>
      <fieldset className="play-tables">
        <legend className="play-sr-only">Table for Describe and Sample</legend>
        {tables.map((t, i) => {
          const marks = [described.has(t.toLowerCase()) && 'described', sampled.has(t.toLowerCase()) && 'sampled'].filter(Boolean).join(', ');
          return (
            <div key={t} className={`play-table${selected === t ? ' selected' : ''}`}>
              <label>
                <input type="radio" name="play-table" value={t} checked={selected === t} onChange={() => select(t)} aria-describedby={marks ? `play-table-marks-${i}` : undefined} />
                <span className="play-table-name">{shownName(t)}</span>
              </label>
              {marks && (
                <span id={`play-table-marks-${i}`} className="play-mark">
                  {marks}
                </span>
              )}
            </div>
          );
        })}
      </fieldset>
      <div className="play-buttons">
        <button type="button" aria-disabled={blocked} aria-describedby="play-selected-table" onClick={() => void describe()}>
          Describe
        </button>
        <button type="button" aria-disabled={blocked} aria-describedby="play-selected-table" onClick={() => void sample()}>
          Sample
        </button>
        <InfoTip topic="Describe and Sample">
          {tip('describe')} {tip('sample')}
        </InfoTip>
        <span id="play-selected-table" className="meta">
          {selected ? <>table <code>{shownName(selected)}</code></> : 'pick a table'}
        </span>
      </div>
    </section>
  );
}
