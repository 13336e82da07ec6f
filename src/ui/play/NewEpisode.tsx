/**
 * Starting an episode four ways: a random question (of a split and difficulty; a split without questions is offered
 * but disabled), a seed (the same seed and filters give the same question), a question picked by searching, or the
 * current one again. A free-play episode (a person's own file) gets a bar of its own instead: no split, difficulty or
 * question list, which a file does not have. Every start goes through the
 * store's `startPlayEpisode`; the view then writes the episode into the URL.
 */
import { useId, useState } from 'react';
import { DIFFICULTIES, type Difficulty, type SplitSelector } from '../../data/types.ts';
import { ChoiceField } from '../components/ChoiceField.tsx';
import { splitChoices } from '../components/split-choices.ts';
import { routeHash } from '../router.ts';
import { useStore } from '../store/store.ts';
import { parseSeed } from './link.ts';
import { tip } from '../help/glossary.ts';
import { InfoTip } from '../components/InfoTip.tsx';
import { plural } from '../components/plural.ts';
import { filterQuestions, questionLabel } from './questions.ts';

/** Options the picker shows at most; the search narrows the rest. */
const MAX_OPTIONS = 400;

function useFilters() {
  const prefs = useStore((s) => s.playPrefs);
  return { split: prefs.split, ...(prefs.difficulty !== 'any' && { difficulty: prefs.difficulty }) };
}

function RandomAndSeed({ dataset, busy }: { dataset: string; busy: boolean }) {
  const prefs = useStore((s) => s.playPrefs);
  const setPrefs = useStore((s) => s.setPlayPrefs);
  const start = useStore((s) => s.startPlayEpisode);
  const filters = useFilters();
  const questions = useStore((s) => {
    const entry = s.datasets[dataset];
    return entry?.status === 'ready' ? entry.summary.questions : null;
  });
  const [seedText, setSeedText] = useState('');
  const seed = parseSeed(seedText);
  return (
    <div className="play-row">
      <ChoiceField className="picker" label="Split" value={prefs.split} choices={splitChoices(questions)} onChange={(split: SplitSelector) => setPrefs({ split })} />
      <ChoiceField
        className="picker"
        label="Difficulty"
        value={prefs.difficulty}
        choices={['any', ...DIFFICULTIES]}
        onChange={(difficulty: Difficulty | 'any') => setPrefs({ difficulty })}
      />
      <button type="button" aria-disabled={busy} onClick={() => void start({ dataset, ...filters })}>
        Random question
      </button>
      <form
        className="play-seed"
        onSubmit={(e) => {
          e.preventDefault();
          if (seed !== null) void start({ dataset, seed, ...filters });
        }}
      >
        <label className="picker">
          Seed
          <input type="text" inputMode="numeric" pattern="[0-9]*" size={8} value={seedText} onChange={(e) => setSeedText(e.target.value)} aria-invalid={seedText !== '' && seed === null} />
        </label>
        <InfoTip topic="the seed">{tip('seed')}</InfoTip>
        <button type="submit" aria-disabled={busy || seed === null}>
          Start with seed
        </button>
      </form>
    </div>
  );
}

function ByQuestion({ dataset, busy }: { dataset: string; busy: boolean }) {
  const entry = useStore((s) => s.datasets[dataset]);
  const current = useStore((s) => s.playEpisode?.question.id);
  const start = useStore((s) => s.startPlayEpisode);
  const [query, setQuery] = useState('');
  const [picked, setPicked] = useState<string | null>(null);
  const countId = useId();
  const questions = entry?.status === 'ready' ? entry.summary.questions : [];
  const matches = filterQuestions(questions, query);
  const shown = matches.slice(0, MAX_OPTIONS);
  const selected = picked !== null && shown.some((q) => q.id === picked) ? picked : (shown.find((q) => q.id === current)?.id ?? shown[0]?.id ?? '');
  return (
    <form
      className="play-row"
      onSubmit={(e) => {
        e.preventDefault();
        if (selected) void start({ dataset, questionId: selected });
      }}
    >
      <label className="picker">
        Search questions
        <input type="search" value={query} onChange={(e) => setQuery(e.target.value)} placeholder="words, id, database…" aria-describedby={countId} />
      </label>
      <label className="picker play-question-picker">
        Question
        <select value={selected} onChange={(e) => setPicked(e.target.value)} disabled={shown.length === 0}>
          {shown.map((q) => (
            <option key={q.id} value={q.id}>
              {questionLabel(q)}
            </option>
          ))}
        </select>
      </label>
      <span id={countId} className="meta">
        {matches.length === questions.length ? plural(questions.length, 'question') : `${matches.length} of ${questions.length} match`}
        {matches.length > shown.length && `, first ${shown.length} listed`}
      </span>
      <button type="submit" aria-disabled={busy || !selected}>
        Play question
      </button>
    </form>
  );
}

/** Free play's own bar: which file, restart, and the way back to the dataset chosen in the header. */
function FreePlayBar({ dataset, header, busy }: { dataset: string; header: string; busy: boolean }) {
  const questionId = useStore((s) => s.playEpisode?.question.id);
  const seed = useStore((s) => s.playEpisode?.seed);
  const start = useStore((s) => s.startPlayEpisode);
  return (
    <section className="panel play-new" aria-labelledby="play-new-title">
      <div className="play-new-head">
        <h3 id="play-new-title">Free play on {dataset}</h3>
        {questionId !== undefined && (
          <button type="button" aria-disabled={busy} onClick={() => void start({ dataset, questionId, ...(seed !== undefined && { seed }) })}>
            Restart this episode
          </button>
        )}
        <a className="button-link" href={routeHash('play', { dataset: header })}>
          Back to {header}
        </a>
      </div>
      <p className="meta">Your own file, in this browser only. Train, Evaluate and Watch keep using {header}, the dataset chosen in the header.</p>
    </section>
  );
}

export function NewEpisode() {
  const dataset = useStore((s) => s.dataset);
  const busy = useStore((s) => s.playBusy !== null);
  const episodeDataset = useStore((s) => s.playEpisode?.dataset);
  const freePlay = useStore((s) => s.playEpisode?.question.freePlay === true);
  const questionId = useStore((s) => s.playEpisode?.question.id);
  const seed = useStore((s) => s.playEpisode?.seed);
  const start = useStore((s) => s.startPlayEpisode);
  if (freePlay && episodeDataset !== undefined) return <FreePlayBar dataset={episodeDataset} header={dataset} busy={busy} />;
  return (
    <section className="panel play-new" aria-labelledby="play-new-title">
      <div className="play-new-head">
        <h3 id="play-new-title">New episode</h3>
        {episodeDataset !== undefined && questionId !== undefined && seed !== undefined && (
          <>
            <button type="button" aria-disabled={busy} onClick={() => void start({ dataset: episodeDataset, questionId, seed })}>
              Restart this episode
            </button>
            <span className="meta">seed {seed}</span>
          </>
        )}
      </div>
      <RandomAndSeed dataset={dataset} busy={busy} />
      <ByQuestion dataset={dataset} busy={busy} />
    </section>
  );
}
