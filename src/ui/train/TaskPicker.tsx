/**
 * What the Train view trains: the header's dataset with the model loaded in Watch, or the toy task "learn to read"
 * (a tiny model the page builds itself: ReadsForm.tsx). Locked while a run lasts.
 */
import { READS_TASK_LABEL } from '../../workers/train-protocol.ts';
import { useStore } from '../store/store.ts';
import { runActive, type TrainTask } from '../store/train-slice.ts';

export function TaskPicker({ dataset }: { dataset: string }) {
  const task = useStore((s) => s.trainTask);
  const setTask = useStore((s) => s.setTrainTask);
  const active = useStore((s) => runActive(s.trainRun));
  const choices: ReadonlyArray<{ value: TrainTask; label: string }> = [
    { value: 'dataset', label: `Dataset ${dataset} with the loaded model` },
    { value: 'reads', label: `${READS_TASK_LABEL} (a tiny model built here, no download)` },
  ];
  return (
    <fieldset className="panel train-task" disabled={active}>
      <legend>Task</legend>
      {choices.map((c) => (
        <label key={c.value} className="check">
          <input type="radio" name="train-task" value={c.value} checked={task === c.value} onChange={() => setTask(c.value)} />
          {c.label}
        </label>
      ))}
    </fieldset>
  );
}
