/**
 * Whether B's difference from A is more than chance: one line in plain words (success "+6 of 34, p = 0.03" by
 * McNemar's exact test; mean return with a 95% bootstrap interval), the same per difficulty in a table, and the
 * warnings that qualify them (other questions, seeds, environment versions). Figures from src/eval/paired-stats.ts,
 * the ones `sqlenv compare` prints; the bootstrap is seeded (seed 0), so a link shows the same interval everywhere.
 */
import { useMemo } from 'react';
import { compareWithStats, returnWords, successWords, summaryWords } from '../../eval/paired-stats.ts';
import type { SavedRun } from '../../eval/run-store.ts';

/** Same seed and resamples as `sqlenv compare`'s defaults, so the page and the CLI print one interval. */
const BOOTSTRAP = { seed: 0, resamples: 2000 } as const;

export function PairedSummary({ runA, runB }: { runA: SavedRun; runB: SavedRun }) {
  const stats = useMemo(
    () => compareWithStats({ records: runA.records, envVersion: runA.summary.envVersion }, { records: runB.records, envVersion: runB.summary.envVersion }, BOOTSTRAP),
    [runA, runB],
  );
  const { overall } = stats;
  return (
    <section className="paired-summary" aria-label="Is the difference more than chance?">
      <p className="paired-line" role="status" aria-label="Difference B − A">
        {summaryWords(overall)}
      </p>
      {stats.warnings.length > 0 && (
        <ul className="paired-warnings" aria-label="Warnings">
          {stats.warnings.map((w) => (
            <li key={w} className="warning">
              {w}
            </li>
          ))}
        </ul>
      )}
      <details>
        <summary>By difficulty</summary>
        <div className="table-scroll">
          <table>
            <caption className="visually-hidden">Difference B − A by difficulty</caption>
            <thead>
              <tr>
                <th scope="col">Difficulty</th>
                <th scope="col" className="number">
                  Questions
                </th>
                <th scope="col" className="number">
                  Only A
                </th>
                <th scope="col" className="number">
                  Only B
                </th>
                <th scope="col">Success B − A (McNemar exact p)</th>
                <th scope="col">Mean return B − A</th>
              </tr>
            </thead>
            <tbody>
              {[['all', overall] as const, ...Object.entries(stats.byDifficulty)].map(([name, s]) => (
                <tr key={name}>
                  <th scope="row">{name}</th>
                  <td className="number">{s.questions}</td>
                  <td className="number">{s.onlyA}</td>
                  <td className="number">{s.onlyB}</td>
                  <td>{successWords(s)}</td>
                  <td>{returnWords(s)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <p className="meta">
          Success: questions only B solved minus those only A solved, of the questions both runs played; p from McNemar&apos;s exact test. Return: mean over questions of B&apos;s return minus A&apos;s, with a
          percentile bootstrap interval over questions ({BOOTSTRAP.resamples} resamples, seed {BOOTSTRAP.seed}).
        </p>
      </details>
    </section>
  );
}
