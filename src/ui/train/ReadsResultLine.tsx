/** The toy run's result (reads-result.ts), under the run's controls once the run has finished. */
import { useStore } from '../store/store.ts';
import { readsDetailText, readsSuccessText, readsVerdict } from './reads-result.ts';

export function ReadsResultLine() {
  const result = useStore((s) => (s.trainRun?.task === 'reads' ? s.trainRun.readsResult : null));
  if (!result) return null;
  return (
    <section className="panel reads-result" aria-label="Toy run result">
      <h3>Result</h3>
      <p role="status" aria-label="Fresh success">
        {readsSuccessText(result)}
      </p>
      <p className="meta">{readsVerdict(result)}</p>
      <p className="meta">{readsDetailText(result)}</p>
    </section>
  );
}
