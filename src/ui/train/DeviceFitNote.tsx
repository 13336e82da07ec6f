/**
 * "This device is slow for these settings": when the GPU adapter is a software fallback (SwiftShader) or the time
 * plan (device-fit.ts) says the first evaluation or a step would take minutes, a note says why and offers "Use
 * smaller settings", which puts the smaller values into the form. Shown only with a model loaded (the plan needs
 * its size); it goes away once the settings are small.
 */
import { useEffect, useState } from 'react';
import type { AdapterSummary } from '../../gpu/adapter-probe.ts';
import { envClient } from '../../workers/env-client.ts';
import { useStore } from '../store/store.ts';
import { runActive } from '../store/train-slice.ts';
import { settingLabel } from './config-fields.ts';
import { deviceFit } from './device-fit.ts';
import { useFormConfig } from './TrainForm.tsx';

export function DeviceFitNote() {
  const [adapter, setAdapter] = useState<AdapterSummary | null>(null);
  useEffect(() => {
    let live = true;
    // Asked of the worker, which is where training runs (and the UI layer talks only to workers).
    void envClient()
      .gpuAdapter()
      .then((a) => live && setAdapter(a))
      .catch(() => live && setAdapter(null));
    return () => {
      live = false;
    };
  }, []);
  const modelInfo = useStore((s) => (s.modelStatus === 'ready' ? s.modelInfo : null));
  const config = useFormConfig();
  const setConfig = useStore((s) => s.setTrainConfig);
  const busy = useStore((s) => runActive(s.trainRun));
  if (!modelInfo || busy) return null;
  const advice = deviceFit(config, adapter, { layers: modelInfo.layers, hidden: modelInfo.hidden, vocab: modelInfo.vocab });
  if (!advice || Object.keys(advice.patch).length === 0) return null;
  const changes = Object.entries(advice.patch)
    .map(([k, v]) => `${settingLabel(k)} ${typeof v === 'number' ? v : JSON.stringify(v)}`)
    .join(', ');
  return (
    <section className="panel device-fit" aria-label="Settings for this device">
      <h3>Smaller settings for this device?</h3>
      {advice.reasons.map((r) => (
        <p key={r}>{r}</p>
      ))}
      <p className="meta">Proposed: {changes}.</p>
      <div className="button-row">
        <button type="button" onClick={() => setConfig(advice.patch)}>
          Use smaller settings
        </button>
      </div>
    </section>
  );
}
