/** Filters on the compared questions besides the outcome: difficulty, database and words of the question. */
import { DIFFICULTIES, type Difficulty } from '../../data/types.ts';
import { ChoiceField } from '../components/ChoiceField.tsx';
import { useStore } from '../store/store.ts';
import { plural } from '../components/plural.ts';

export function CompareFilters({ databases, shown, total }: { databases: string[]; shown: number; total: number }) {
  const filter = useStore((s) => s.compareFilter);
  const setFilter = useStore((s) => s.setCompareFilter);
  const filtered = filter.outcome !== 'all' || filter.difficulty !== 'all' || filter.dbId !== 'all' || filter.text !== '';
  return (
    <div className="compare-filters" role="group" aria-label="Filter questions">
      <ChoiceField
        label="Difficulty"
        value={filter.difficulty}
        choices={[{ value: 'all', label: 'any' }, ...DIFFICULTIES]}
        onChange={(difficulty: Difficulty | 'all') => setFilter({ difficulty })}
      />
      <label className="field">
        Database
        <select value={databases.includes(filter.dbId) ? filter.dbId : 'all'} onChange={(e) => setFilter({ dbId: e.target.value })}>
          <option value="all">any</option>
          {databases.map((d) => (
            <option key={d} value={d}>
              {d}
            </option>
          ))}
        </select>
      </label>
      <label className="field grow">
        Search questions
        <input type="search" value={filter.text} onChange={(e) => setFilter({ text: e.target.value })} placeholder="words or question id" />
      </label>
      <p className="meta filter-count" role="status">
        {shown} of {plural(total, 'question')}
        {filtered && (
          <button type="button" className="link-button" onClick={() => setFilter({ outcome: 'all', difficulty: 'all', dbId: 'all', text: '' })}>
            Clear filters
          </button>
        )}
      </p>
    </div>
  );
}
