/**
 * "How it works": the page a newcomer reads first. The task, the four actions with examples, the three reward parts
 * with their formulas and the current weights, what counts as a correct answer, the step budget, the policies, and
 * what Train does, and how to get a model (GetModelGuide.tsx; `#/help?section=get-a-model` scrolls to it). Every
 * number comes from help-figures.ts (the environment's own constants) or the model registry, none is typed here.
 */
import { useEffect } from 'react';
import { routeHash, useRoute } from '../router.ts';
import { GET_MODEL_SECTION, GetModelGuide } from './GetModelGuide.tsx';
import { helpFigures, numberText as n } from './help-figures.ts';
import './help.css';

const ACTIONS = [
  { action: 'DESCRIBE', example: 'DESCRIBE singer', what: 'the table’s columns, types and keys' },
  { action: 'SAMPLE', example: 'SAMPLE singer', what: 'the first rows of the table' },
  { action: 'QUERY', example: 'QUERY SELECT name FROM singer WHERE age > 30', what: 'runs one read-only SELECT or WITH statement and shows its result (cut to a bounded size, which the result says)' },
  { action: 'ANSWER', example: 'ANSWER 6', what: 'submits the answer and ends the episode: a value, a list (ANSWER ["France", "Spain"] or one value per line) or rows (ANSWER [["Joe", 3], ["Ann", 5]] or a pasted table)' },
] as const;

export default function HelpView() {
  const f = helpFigures();
  const w = f.weights;
  const op = f.operational;
  const section = useRoute().params.get('section');
  useEffect(() => {
    if (section) document.getElementById(section)?.scrollIntoView({ block: 'start' });
  }, [section]);
  return (
    <article className="help-view" aria-labelledby="help-heading">
      <h2 id="help-heading">How it works</h2>

      <section className="panel" aria-labelledby="help-task">
        <h3 id="help-task">The task</h3>
        <p>
          Each episode is one natural-language question about one SQLite database, such as “How many singers are there?”. You (or a policy) explore the
          database with actions and submit an answer. Every action costs one step; the episode ends with an ANSWER or when the <strong>{f.budget}-step budget</strong> is
          spent. Databases are opened read-only: writes, ATTACH and PRAGMA are refused, and a query is stopped after {n(f.queryTimeoutMs / 1000)} s.
        </p>
      </section>

      <section className="panel" aria-labelledby="help-actions">
        <h3 id="help-actions">The four actions</h3>
        <table className="help-table" aria-labelledby="help-actions">
          <thead>
            <tr>
              <th scope="col">Action</th>
              <th scope="col">Example</th>
              <th scope="col">What it does</th>
            </tr>
          </thead>
          <tbody>
            {ACTIONS.map((a) => (
              <tr key={a.action}>
                <th scope="row">{a.action}</th>
                <td>
                  <code>{a.example}</code>
                </td>
                <td>{a.action === 'SAMPLE' ? `the first ${f.sampleRows} rows of the table` : a.what}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>

      <section className="panel" aria-labelledby="help-rewards">
        <h3 id="help-rewards">The reward: three parts</h3>
        <p>Every step’s reward is a weighted sum, shown under each step as it adds up:</p>
        <p className="help-formula">
          reward = {n(w.correctness)} × correctness + {n(w.progress)} × progress + {n(w.operational)} × operational
        </p>
        <table className="help-table">
          <caption>Reward weights</caption>
          <thead>
            <tr>
              <th scope="col">Part</th>
              <th scope="col" className="number">
                Weight
              </th>
              <th scope="col">Formula</th>
            </tr>
          </thead>
          <tbody>
            <tr>
              <th scope="row">correctness</th>
              <td className="number">{n(w.correctness)}</td>
              <td>1 on the step that answers correctly, otherwise 0.</td>
            </tr>
            <tr>
              <th scope="row">progress</th>
              <td className="number">{n(w.progress)}</td>
              <td>
                Φ<sub>t</sub> − Φ<sub>t−1</sub>, where Φ is the best closeness so far (0 to 1) of a QUERY or SAMPLE result to the gold. Closeness is the
                smallest similarity over the database and {n(f.copies)} perturbed copies of it (rows removed, values changed, both, columns shuffled), the gold SQL re-run on
                each: similarity is 1 for an exact match, else {n(f.cellF1Weight)} × F1 of the cells + {n(f.rowF1Weight)} × F1 of the rows. So a typed guess,
                however spelled, earns nothing: it does not follow the data. A repeat earns 0.
              </td>
            </tr>
            <tr>
              <th scope="row">operational</th>
              <td className="number">{n(w.operational)}</td>
              <td>
                {n(op.step)} for every step (DESCRIBE, SAMPLE, QUERY, a wrong ANSWER): nothing is paid for activity. {n(op.repeat)} for a repeated action,{' '}
                {n(op.error)} for an error (invalid action, unknown table, SQL error, refused or timed-out query).
              </td>
            </tr>
          </tbody>
        </table>
        <p>
          <strong>On a correct answer</strong> the shaping is settled: correctness is 1, progress gives back Φ and operational gives back everything paid before, less{' '}
          {n(f.stepCost)} per step after the first. So a correct episode of L steps returns exactly {n(w.correctness)} − {n(w.operational * f.stepCost)} × (L − 1): from{' '}
          {n(f.bestCorrectReturn)} in one step to {n(f.worstCorrectReturn)} in {f.budget}. An episode without a correct answer returns at most {n(f.bestFailedReturn)}.
          A wrong answer costs one step and keeps Φ, so answering never loses to stalling. Correct always beats incorrect, shorter beats longer, and padding or
          guessing earns nothing; progress only ranks the failures.
        </p>
      </section>

      <section className="panel" aria-labelledby="help-success">
        <h3 id="help-success">What counts as a correct answer</h3>
        <ul>
          <li>The answer is compared with the result of the question’s gold SQL. Its shape may be a value, a list or rows, written as JSON, one per line, comma- or tab-separated, or a pasted table.</li>
          <li>Text is trimmed and compared without case or extra spaces; NULL may be written null, none or left empty.</li>
          <li>Rows and list items may come in any order, unless the gold SQL has ORDER BY; columns may come in any order.</li>
          <li>
            Numbers are as exact as written: an integer must equal the gold (20001 is not 20000); with d decimals it must be the gold rounded to d places, and d must be at least
            2 when the gold has 2 or more decimals (3.33 matches 3.3333, 3.3 does not).
          </li>
        </ul>
      </section>

      <section className="panel" aria-labelledby="help-policies">
        <h3 id="help-policies">Policies: who plays</h3>
        <dl className="help-list">
          <dt>Random</dt>
          <dd>Valid actions at random, seeded: the floor to beat.</dd>
          <dt>Oracle</dt>
          <dd>Knows the gold SQL: describes its tables, runs it and answers. The ceiling.</dd>
          <dt>Qwen</dt>
          <dd>
            A small Qwen language model running on your GPU (WebGPU), loaded in <a href={routeHash('watch')}>Watch</a>: zero- or few-shot, or with a LoRA adapter you trained
            (“Qwen + adapter”).
          </dd>
        </dl>
      </section>

      <section className="panel" id={GET_MODEL_SECTION} aria-labelledby="help-model">
        <h3 id="help-model">Get a model</h3>
        <p>
          Qwen plays only once a model is loaded, in <a href={routeHash('watch')}>Watch</a>’s Model panel. Three ways to get one (a model made by{' '}
          <code>npm run model:tiny</code> has random weights: it is for trying the machinery, and the page says “random test weights: expect nonsense” wherever it plays):
        </p>
        <GetModelGuide />
      </section>

      <section className="panel" aria-labelledby="help-train">
        <h3 id="help-train">What Train does</h3>
        <p>
          <a href={routeHash('train')}>Train</a> fine-tunes a LoRA adapter of the loaded Qwen model on your GPU. <strong>SFT</strong> (warm-up) teaches it to imitate the Oracle’s
          episodes on train questions. <strong>GRPO</strong> then lets it play groups of episodes per question, scores them with the reward above, and pushes it toward the
          episodes that scored above their group’s mean. Evaluation episodes on train and eval questions show whether it generalises; the adapter can be saved and compared
          with the base model in <a href={routeHash('evaluate')}>Evaluate</a> and <a href={routeHash('compare')}>Compare</a>.
        </p>
      </section>
    </article>
  );
}
