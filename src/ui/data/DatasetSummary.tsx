/**
 * What a dataset holds, at a glance: its name and description, the number of databases, questions by split and by
 * difficulty, and the first few questions. Purely presentational: it receives a loaded `Dataset` and renders text
 * (database content is always rendered as text, never HTML).
 */
import { DIFFICULTIES, SPLITS, type Dataset, type Difficulty, type Question, type Split } from '../../data/types.ts';

/** How many example questions to list. */
const SAMPLE_SIZE = 5;

function countBy<K extends string>(questions: readonly Question[], keys: readonly K[], keyOf: (q: Question) => K): Map<K, number> {
  const counts = new Map<K, number>(keys.map((k) => [k, 0]));
  for (const q of questions) counts.set(keyOf(q), (counts.get(keyOf(q)) ?? 0) + 1);
  return counts;
}

function CountTable<K extends string>({ caption, label, counts }: { caption: string; label: string; counts: Map<K, number> }) {
  return (
    <table>
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">{label}</th>
          <th scope="col">Questions</th>
        </tr>
      </thead>
      <tbody>
        {[...counts].map(([key, n]) => (
          <tr key={key}>
            <th scope="row">{key}</th>
            <td className="number">{n}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function DatasetSummary({ dataset }: { dataset: Dataset }) {
  const bySplit = countBy<Split>(dataset.questions, SPLITS, (q) => q.split);
  const byDifficulty = countBy<Difficulty>(dataset.questions, DIFFICULTIES, (q) => q.difficulty);
  const sample = dataset.questions.slice(0, SAMPLE_SIZE);
  return (
    <section className="panel" aria-labelledby="dataset-heading">
      <h2 id="dataset-heading">Dataset: {dataset.name}</h2>
      {dataset.description && <p>{dataset.description}</p>}
      <dl className="figures">
        <div>
          <dt>Databases</dt>
          <dd>{dataset.databases.length}</dd>
        </div>
        <div>
          <dt>Questions</dt>
          <dd>{dataset.questions.length}</dd>
        </div>
      </dl>
      <div className="figures">
        <CountTable caption="Questions by split" label="Split" counts={bySplit} />
        <CountTable caption="Questions by difficulty" label="Difficulty" counts={byDifficulty} />
      </div>
      <h3 id="sample-heading">Some questions</h3>
      <ol className="questions" aria-labelledby="sample-heading">
        {sample.map((q) => (
          <li key={q.id}>
            {q.question}
            <div className="meta">
              {q.dbId} · {q.difficulty} · {q.split} · <code>{q.id}</code>
            </div>
          </li>
        ))}
      </ol>
      {dataset.license && <p className="license">Data licence: {dataset.license}</p>}
    </section>
  );
}
