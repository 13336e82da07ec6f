/**
 * The Model panel's settings: thinking (off by default), 0/1/3-shot prompts from Oracle transcripts of the current
 * dataset's train questions, temperature and top-p (temperature 0 is greedy), the per-turn token limit, and the
 * decode weight format (q8 by default (DEFAULT_DECODE_WEIGHTS, quant.ts says why), q4m, q4, f16 — the reference). All but the weight format apply to a loaded model
 * without reloading it ("Apply settings"); the weight format takes effect at the next load. The form's type and
 * defaults live in the store (model-form.ts), which keeps them across reloads.
 */
import { DEFAULT_DECODE_WEIGHTS, WEIGHT_FORMATS, type WeightFormat } from '../../gpu/quant.ts';
import { SHOT_COUNTS } from '../../policies/llm/prompt.ts';
import { switchThinking } from '../../policies/llm/sampling-defaults.ts';
import { MAX_NEW_TOKENS_LIMIT, type ShotCount } from '../../workers/llm-settings.ts';
import type { ModelSettingsForm } from '../store/model-form.ts';
import { CheckField, Field } from '../components/Field.tsx';
import { DecimalField } from './DecimalField.tsx';
import { NumberField } from './NumberField.tsx';
import { tip } from '../help/glossary.ts';

const WEIGHT_NAMES: Record<WeightFormat, string> = { q4: 'q4 (4-bit groups)', q4m: 'q4m (4-bit groups with minimum, 8-bit embedding)', q8: 'q8 (8-bit groups)', f16: 'f16 (reference)' };
const weightLabel = (w: WeightFormat) => (w === DEFAULT_DECODE_WEIGHTS ? `${WEIGHT_NAMES[w]}, default` : WEIGHT_NAMES[w]);
/** Smallest first; f16 last (the reference). */
const WEIGHT_ORDER: readonly WeightFormat[] = ['q4', 'q4m', 'q8', 'f16'];

export function ModelSettings({ value, onChange, disabled }: { value: ModelSettingsForm; onChange: (patch: Partial<ModelSettingsForm>) => void; disabled: boolean }) {
  return (
    <fieldset className="model-settings" disabled={disabled}>
      <legend>Settings</legend>
      <CheckField className="field checkbox" label="Thinking" help={tip('thinking')} checked={value.thinking} onChange={(thinking) => onChange(switchThinking(value, thinking))} />
      <Field label="Few-shot examples" help={tip('shots')}>
        {(id) => (
          <select id={id} value={value.shots} onChange={(e) => onChange({ shots: Number(e.target.value) as ShotCount })}>
            {SHOT_COUNTS.map((n) => (
              <option key={n} value={n}>
                {n === 0 ? 'None (zero-shot)' : `${n}-shot`}
              </option>
            ))}
          </select>
        )}
      </Field>
      <DecimalField label="Temperature" help={tip('temperature')} value={value.temperature} min={0} max={2} step={0.05} onChange={(temperature) => onChange({ temperature })} />
      <DecimalField label="Top-p" help={tip('topP')} value={value.topP} min={0} max={1} step={0.05} minExclusive onChange={(topP) => onChange({ topP })} />
      <NumberField label="Max new tokens" help={tip('maxNewTokens')} value={value.maxNewTokens} min={1} max={MAX_NEW_TOKENS_LIMIT} onChange={(maxNewTokens) => onChange({ maxNewTokens })} />
      <Field label="Decode weights" help={tip('decodeWeights')}>
        {(id) => (
          <select id={id} value={value.weights} onChange={(e) => onChange({ weights: e.target.value as WeightFormat })}>
            {WEIGHT_ORDER.filter((w) => WEIGHT_FORMATS.includes(w)).map((w) => (
              <option key={w} value={w}>
                {weightLabel(w)}
              </option>
            ))}
          </select>
        )}
      </Field>
    </fieldset>
  );
}
