/**
 * The Train view: fine-tune the model loaded in Watch with a LoRA adapter, SFT warm-up or GRPO, in the environment
 * worker on this device's GPU — or, picked above the form (TaskPicker.tsx), the toy task "learn to read" on a tiny
 * model the worker builds itself (ReadsForm.tsx; its result under the run's controls, ReadsResultLine.tsx). The form
 * and the run's controls side by side on wide screens (stacked on narrow ones),
 * with a note on a run an earlier page left unfinished (resume or discard it) and one proposing smaller settings
 * when this device would take minutes a step; then the live charts and the execution traces of the run on screen,
 * then the checkpoints (resume after a reload)
 * and the adapters (download, load, and each one a policy of Watch, Evaluate and Compare).
 */
import { useEffect } from 'react';
import { useStore } from '../store/store.ts';
import { Adapters } from './Adapters.tsx';
import { Checkpoints } from './Checkpoints.tsx';
import { DeviceFitNote } from './DeviceFitNote.tsx';
import { InterruptedRun } from './InterruptedRun.tsx';
import { RunControls } from './RunControls.tsx';
import { TrainCharts } from './TrainCharts.tsx';
import { TrainForm } from './TrainForm.tsx';
import { TraceList } from './TraceList.tsx';
import { ReadsForm } from './ReadsForm.tsx';
import { ReadsResultLine } from './ReadsResultLine.tsx';
import { TaskPicker } from './TaskPicker.tsx';
import './train.css';

function Notice() {
  const notice = useStore((s) => s.trainNotice);
  const dismiss = useStore((s) => s.setTrainNotice);
  if (notice === null) return null;
  return (
    <div className="error train-notice" role="alert">
      <p>{notice}</p>
      <button type="button" onClick={() => dismiss(null)}>
        Dismiss
      </button>
    </div>
  );
}

export default function TrainView() {
  const dataset = useStore((s) => s.dataset);
  const task = useStore((s) => s.trainTask);
  const refresh = useStore((s) => s.refreshTrainLists);
  const readInterruptedRun = useStore((s) => s.readInterruptedRun);
  useEffect(() => {
    void refresh();
    void readInterruptedRun();
  }, [refresh, readInterruptedRun]);

  return (
    <div className="train-view">
      <h2>Train a LoRA adapter</h2>
      <TaskPicker dataset={dataset} />
      <div className="train-top">
        {task === 'reads' ? <ReadsForm /> : <TrainForm dataset={dataset} />}
        <div className="train-side">
          <Notice />
          <InterruptedRun />
          {task === 'dataset' && <DeviceFitNote />}
          <RunControls />
          <ReadsResultLine />
          <Checkpoints />
          <Adapters />
        </div>
      </div>
      <TrainCharts />
      <TraceList />
    </div>
  );
}
