/**
 * The Train form: algorithm, the adapter to start from and the name of the one the run makes, then every setting of
 * `TrainConfig` from the table in config-fields.ts — essentials, reward weights, and the rest behind "Advanced
 * settings", each group only when it has a field for the chosen algorithm. Settings both algorithms share keep one
 * value across a switch; each algorithm keeps its own (shared-settings.ts). Start checks the whole config
 * (config-check.ts) and refuses with the setting named (and its field marked, the advanced part opened when it is
 * there); a run needs a model loaded in Watch's Model panel. While a run lasts the whole form is locked (one disabled
 * fieldset), since its settings are the run's.
 */
import { useMemo, useState } from 'react';
import type { RewardWeights } from '../../env/rewards.ts';
import { LORA_TARGETS, type LoraTarget } from '../../model/lora.ts';
import type { TrainAlgo, TrainConfig } from '../../train/types.ts';
import { ChoiceField } from '../components/ChoiceField.tsx';
import { CheckField } from '../components/Field.tsx';
import { routeHash } from '../router.ts';
import { useStore } from '../store/store.ts';
import { runActive } from '../store/train-slice.ts';
import { configProblem, type ConfigProblem } from './config-check.ts';
import { CHOICE_SETTINGS, GROUP_TITLES, groupHasFields, NUMBER_SETTINGS, REWARD_LABELS, shownFor, SWITCH_SETTINGS, type ChoiceSetting, type SettingGroup } from './config-fields.ts';
import { SettingField } from './SettingField.tsx';
import { configFor, readTrainSettings } from './shared-settings.ts';
import { TRAIN_SETTING_HELP } from '../help/glossary.ts';
import { GET_MODEL_LINK } from '../help/GetModelGuide.tsx';

const ALGOS = [
  { value: 'grpo' as const, label: 'GRPO' },
  { value: 'sft' as const, label: 'SFT warm-up' },
];

const ADVANCED: SettingGroup[] = ['loss', 'optimizer', 'batching', 'reporting'];

/** The config the form shows: the shared settings and the algorithm's own, completed with its defaults. */
export function useFormConfig(): TrainConfig {
  const form = useStore((s) => s.trainForm);
  return useMemo(() => configFor(readTrainSettings(form), form.algo), [form]);
}

interface GroupProps {
  group: SettingGroup;
  config: TrainConfig;
  problemKey: string;
  disabled: boolean;
  onChange: (patch: Partial<TrainConfig>) => void;
}

function SettingsGroup({ group, config, problemKey, disabled, onChange }: GroupProps) {
  if (!groupHasFields(group, config.algo)) return null;
  const numbers = NUMBER_SETTINGS.filter((s) => s.group === group && shownFor(s, config.algo));
  const switches = SWITCH_SETTINGS.filter((s) => s.group === group && shownFor(s, config.algo));
  const choices = CHOICE_SETTINGS.filter((s) => s.group === group && shownFor(s, config.algo));
  return (
    <fieldset className="settings-group">
      <legend>{GROUP_TITLES[group]}</legend>
      <div className="form-grid">
        {numbers.map((s) => (
          <SettingField key={s.key} label={s.label} value={config[s.key]} whole={s.whole} hint={s.hint} invalid={problemKey === s.key} disabled={disabled} onChange={(v) => onChange({ [s.key]: v })} />
        ))}
        {choices.map((s) => (
          <ChoiceSettingField key={s.key} setting={s} config={config} disabled={disabled} onChange={onChange} />
        ))}
      </div>
      {switches.map((s) => (
        <CheckField key={s.key} className="check" label={s.label} help={TRAIN_SETTING_HELP[s.key]} checked={config[s.key]} disabled={disabled} onChange={(checked) => onChange({ [s.key]: checked })} />
      ))}
      {group === 'batching' && <LoraTargets targets={config.loraTargets} invalid={problemKey === 'loraTargets'} disabled={disabled} onChange={(loraTargets) => onChange({ loraTargets })} />}
    </fieldset>
  );
}

/** A choice setting as a select; its values are the table's, so the field's type holds whatever is picked. */
function ChoiceSettingField({ setting, config, disabled, onChange }: { setting: ChoiceSetting; config: TrainConfig; disabled: boolean; onChange: (patch: Partial<TrainConfig>) => void }) {
  return (
    <ChoiceField
      label={setting.label}
      help={TRAIN_SETTING_HELP[setting.key]}
      value={config[setting.key]}
      choices={setting.choices}
      disabled={disabled}
      onChange={(value: string) => onChange({ [setting.key]: value })}
    />
  );
}

function LoraTargets({ targets, invalid, disabled, onChange }: { targets: LoraTarget[]; invalid: boolean; disabled: boolean; onChange: (targets: LoraTarget[]) => void }) {
  return (
    <fieldset className="lora-targets" aria-invalid={invalid}>
      <legend>LoRA targets</legend>
      {LORA_TARGETS.map((t) => (
        <label key={t} className="check">
          <input
            type="checkbox"
            checked={targets.includes(t)}
            disabled={disabled}
            onChange={(e) => onChange(e.target.checked ? LORA_TARGETS.filter((x) => x === t || targets.includes(x)) : targets.filter((x) => x !== t))}
          />
          {t}
        </label>
      ))}
    </fieldset>
  );
}

function RewardWeightsGroup({ config, problemKey, disabled, onChange }: Omit<GroupProps, 'group'>) {
  const parts = Object.keys(REWARD_LABELS) as Array<keyof RewardWeights>;
  return (
    <fieldset className="settings-group">
      <legend>Reward weights</legend>
      <div className="form-grid">
        {parts.map((part) => (
          <SettingField
            key={part}
            label={REWARD_LABELS[part]}
            value={config.rewardWeights[part]}
            whole={false}
            invalid={problemKey === `rewardWeights.${part}`}
            disabled={disabled}
            onChange={(v) => onChange({ rewardWeights: { ...config.rewardWeights, [part]: v } })}
          />
        ))}
      </div>
    </fieldset>
  );
}

function isAdvanced(problem: ConfigProblem | null): boolean {
  if (!problem || problem.field.startsWith('rewardWeights.')) return false;
  if (problem.field === 'loraTargets') return true;
  const setting = [...NUMBER_SETTINGS, ...SWITCH_SETTINGS, ...CHOICE_SETTINGS].find((s) => s.key === problem.field);
  return setting !== undefined && setting.group !== 'essentials';
}

export function TrainForm({ dataset }: { dataset: string }) {
  const form = useStore((s) => s.trainForm);
  const config = useFormConfig();
  const adapters = useStore((s) => s.adapters);
  const model = useStore((s) => (s.modelStatus === 'ready' ? s.modelInfo : null));
  const active = useStore((s) => runActive(s.trainRun));
  const setAlgo = useStore((s) => s.setTrainAlgo);
  const setConfig = useStore((s) => s.setTrainConfig);
  const setForm = useStore((s) => s.setTrainForm);
  const reset = useStore((s) => s.resetTrainConfig);
  const start = useStore((s) => s.startTrainingRun);
  const [problem, setProblem] = useState<ConfigProblem | null>(null);
  const [advancedOpen, setAdvancedOpen] = useState(false);
  const problemKey: string = problem?.field ?? '';
  const change = (patch: Partial<TrainConfig>) => {
    setProblem(null);
    setConfig(patch);
  };
  const initAdapter = adapters?.find((a) => a.id === form.initAdapterId);

  return (
    <form
      className="panel train-form"
      aria-label="Training settings"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        const found = configProblem(config);
        setProblem(found);
        if (isAdvanced(found)) setAdvancedOpen(true);
        if (!found && model) void start(dataset, config);
      }}
    >
      <h3>New run</h3>
      <p className="meta">
        Dataset <strong>{dataset}</strong> (change it in the header): its train split feeds the run, its eval split the evaluations.
      </p>
      {model ? (
        <p className="meta">
          Model <strong>{model.label}</strong> ({model.layers} layers, hidden {model.hidden}) on {model.adapter}.
        </p>
      ) : (
        <p className="notice" role="note">
          No model is loaded. Load one in <a href={routeHash('watch')}>Watch’s Model panel</a>, then come back to train it (
          <a href={GET_MODEL_LINK}>Get a model</a>: from the Hub, a served folder, or <code>npm run model:tiny</code> for a small test model). The task “Toy: learn to read” above needs no model.
        </p>
      )}
      {active && (
        <p className="meta">
          The settings are locked while a run lasts: they are the run’s. Stop it (or let it end) to change them.
        </p>
      )}
      {/* One lock for every field, present and future: a disabled fieldset disables all the controls inside it. */}
      <fieldset className="train-form-lock" disabled={active}>
        <div className="form-grid">
          <ChoiceField label="Algorithm" value={form.algo} choices={ALGOS} disabled={active} onChange={(algo: TrainAlgo) => (setProblem(null), setAlgo(algo))} />
          <label className="field">
            Start from
            <select value={initAdapter ? form.initAdapterId : ''} disabled={active} onChange={(e) => setForm({ initAdapterId: e.target.value })}>
              <option value="">A fresh adapter</option>
              {(adapters ?? []).map((a) => (
                <option key={a.id} value={a.id}>
                  {a.name} (rank {a.rank})
                </option>
              ))}
            </select>
          </label>
          <label className="field">
            Adapter name
            <input type="text" value={form.adapterName} placeholder={`${form.algo} <date>`} disabled={active} onChange={(e) => setForm({ adapterName: e.target.value })} />
          </label>
        </div>
        <p className="meta">Steps, learning rate and the {form.algo === 'sft' ? 'SFT' : 'GRPO'}-only settings are kept for each algorithm; every other setting is shared by SFT and GRPO.</p>
        {initAdapter && <p className="meta">Continues {initAdapter.name}: its rank, alpha and targets replace the LoRA settings below.</p>}
        <SettingsGroup group="essentials" config={config} problemKey={problemKey} disabled={active} onChange={change} />
        <RewardWeightsGroup config={config} problemKey={problemKey} disabled={active} onChange={change} />
        <details className="advanced" open={advancedOpen} onToggle={(e) => setAdvancedOpen(e.currentTarget.open)}>
          <summary>Advanced settings</summary>
          {ADVANCED.map((group) => (
            <SettingsGroup key={group} group={group} config={config} problemKey={problemKey} disabled={active} onChange={change} />
          ))}
        </details>
        {problem && (
          <p className="step-error" role="alert" aria-label="Settings problem">
            {problem.message}
          </p>
        )}
        <div className="button-row">
          <button type="submit" className="primary" disabled={active || !model}>
            Start training
          </button>
          <button type="button" disabled={active} onClick={() => (setProblem(null), reset())}>
            Reset to defaults
          </button>
        </div>
      </fieldset>
    </form>
  );
}
