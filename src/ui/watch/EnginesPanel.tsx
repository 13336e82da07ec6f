/**
 * The Engines panel of Watch: with a model loaded in both backends (the WebGPU engine above, transformers.js below
 * it), runs the same prompt on each, greedy — a warm-up, then three timed rounds — and shows time to first token,
 * prefill and decode tokens/s side by side, measured on this device (engine-compare.ts). With one backend loaded it
 * times that one alone.
 */
import { useState } from 'react';
import { ErrorBox } from '../components/ErrorBox.tsx';
import { useStore } from '../store/store.ts';
import { engineRatioText, engineTableRows } from './engine-figures.ts';
import { NumberField } from './NumberField.tsx';
import './engines.css';

export function EnginesPanel() {
  const engineLoaded = useStore((s) => s.modelStatus === 'ready');
  const tjsLoaded = useStore((s) => s.tjsStatus === 'ready');
  const status = useStore((s) => s.engineStatus);
  const comparison = useStore((s) => s.engineComparison);
  const error = useStore((s) => s.engineError);
  const runEngineComparison = useStore((s) => s.runEngineComparison);
  const [promptTokens, setPromptTokens] = useState(64);
  const [newTokens, setNewTokens] = useState(32);
  const running = status === 'running';
  const any = engineLoaded || tjsLoaded;

  return (
    <section className="panel watch-setup engines-panel" aria-label="Engines">
      <h3>Engines</h3>
      <p className="meta">
        {engineLoaded && tjsLoaded
          ? 'Times the same prompt on the WebGPU engine and on transformers.js, on this device.'
          : 'Load a model in both backends (the Model panel and transformers.js) to time them side by side; with one, it is timed alone.'}
      </p>
      <NumberField label="Prompt tokens" value={promptTokens} min={1} max={1024} onChange={setPromptTokens} />
      <NumberField label="New tokens" value={newTokens} min={2} max={1024} onChange={setNewTokens} />
      <div className="button-row">
        <button type="button" disabled={!any || running} onClick={() => void runEngineComparison({ promptTokens, newTokens, rounds: 3 })}>
          {running ? 'Measuring…' : 'Compare engines'}
        </button>
      </div>
      {comparison && (
        <>
          <table className="engines-table" aria-label="Engine speeds">
            <caption className="meta">
              Prompt {comparison.promptTokens} tokens, up to {comparison.newTokens} new tokens, greedy; medians of 3 rounds after a warm-up. First token: the time to it (the prompt's prefill).
            </caption>
            <thead>
              <tr>
                <th scope="col">Backend</th>
                <th scope="col">First token</th>
                <th scope="col">Prefill</th>
                <th scope="col">Decode</th>
              </tr>
            </thead>
            <tbody>
              {engineTableRows(comparison).map((r) => (
                <tr key={r.backend}>
                  <th scope="row">
                    {r.backend}
                    <span className="meta">{r.detail}</span>
                  </th>
                  <td>{r.ttft}</td>
                  <td>{r.prefill}</td>
                  <td>{r.decode}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {engineRatioText(comparison) !== null && <p className="meta">{engineRatioText(comparison)}</p>}
          {comparison.sameTokens !== null && <p className="meta">Greedy tokens {comparison.sameTokens ? 'agree' : 'differ (different weight formats round differently)'}.</p>}
        </>
      )}
      {error !== null && <ErrorBox title="The engines could not be compared" message={error} />}
    </section>
  );
}
