/**
 * The Train view's named actions on an interrupted run (see interrupted-plan.ts): read the newest record the worker
 * holds into the store, resume it (load its model again where that can be done, then continue from its checkpoint or
 * start it again), or discard it. The record itself is the worker's (train-service.ts): it is replaced as soon as the
 * resumed run writes its own.
 */
import type { LlmSource } from '../../workers/llm-source.ts';
import { envClient } from '../../workers/env-client.ts';
import { errorText } from '../store/datasets-slice.ts';
import { useStore } from '../store/store.ts';
import { runActive } from '../store/train-slice.ts';
import { loadModelWithSettings } from '../watch/model-actions.ts';
import { interruptedPlan } from './interrupted-plan.ts';

/** Reads the newest interrupted run (none while this page runs one). */
export async function readInterruptedRun(): Promise<void> {
  try {
    const [newest] = await envClient().interruptedTrainingRuns();
    useStore.setState({ interruptedRun: newest ?? null });
  } catch (e) {
    useStore.setState({ trainNotice: `Interrupted runs could not be read: ${errorText(e)}` });
  }
}

export async function discardInterruptedRun(): Promise<void> {
  const record = useStore.getState().interruptedRun;
  if (!record) return;
  useStore.setState({ interruptedRun: null });
  try {
    await envClient().discardInterruptedRun(record.runId);
  } catch (e) {
    useStore.setState({ trainNotice: `The interrupted run could not be discarded: ${errorText(e)}` });
  }
}

export async function resumeInterruptedRun(): Promise<void> {
  const state = useStore.getState();
  const record = state.interruptedRun;
  if (!record || runActive(state.trainRun)) return;
  const plan = interruptedPlan(record, state.modelInfo?.label ?? null);
  if (!plan.canResume) return;
  if (plan.model.kind === 'load' && record.source && record.source.kind !== 'files') {
    await loadModelWithSettings(record.source satisfies LlmSource, record.modelSettings ?? {});
    const loaded = useStore.getState().modelInfo?.label ?? null;
    if (loaded !== record.model) {
      useStore.setState({ trainNotice: `${record.model} could not be loaded again${useStore.getState().modelError ? `: ${useStore.getState().modelError}` : ''}. Load it in Watch’s Model panel, then resume.` });
      return;
    }
  }
  useStore.setState({ interruptedRun: null });
  if (plan.from === 'checkpoint') {
    const checkpoint = (await envClient().listCheckpoints()).find((c) => c.id === record.checkpointId);
    if (checkpoint) return useStore.getState().resumeCheckpoint(checkpoint);
    useStore.setState({ trainNotice: `The checkpoint of step ${record.checkpointStep} is gone (deleted, or the browser cleared its storage): the run starts again from step 0.` });
  }
  await envClient().discardInterruptedRun(record.runId);
  return useStore.getState().startTrainingRun(record.request.dataset, record.request.config);
}
