/**
 * "Random test weights: expect nonsense", wherever a model marked as a test model (its config.json's mark,
 * src/model/test-model-marker.ts) plays: under the policy in Watch and Evaluate when the chosen policy plays the
 * loaded model (`qwen` or an adapter on it), and in the Model panel once it is loaded (`policy` omitted). Nothing
 * when the loaded model is a real one.
 */
import { describeTestModel } from '../../model/test-model-marker.ts';
import { isModelPolicy } from '../store/policy-choice.ts';
import { useStore } from '../store/store.ts';
import './test-model-notice.css';

export function TestModelNotice({ policy }: { policy?: string }) {
  const marker = useStore((s) => s.modelInfo?.testModel ?? null);
  if (marker === null || (policy !== undefined && !isModelPolicy(policy))) return null;
  return (
    <p className="test-model-notice" role="note" aria-label="Test model">
      {describeTestModel(marker)}
    </p>
  );
}
