/**
 * What the Train view's run card says in words, from the run's events: the headline ("Running: step 2 of 2" while
 * step 2 is under way — the step in progress, not the last one done) and the clock of the activity in progress,
 * which ticks between events: a forward or backward pass can take a minute on a slow device with no event in
 * between, and a clock stuck at "0 s so far" reads as a frozen page — and the figures under the bar, which say whose
 * they are (the activity's) beside the run's own time since Start. Pure: no React, tested in Node.
 */
import { etaText } from '../../train/progress.ts';
import type { TrainProgress } from '../../train/types.ts';
import type { TrainPhase } from '../../workers/train-protocol.ts';
import { plural } from '../components/plural.ts';
import { duration } from '../evaluate/figures.ts';
import type { TrainRunView } from '../store/train-slice.ts';

const PHASE_TEXT: Record<TrainPhase, string> = {
  loading: 'Loading',
  idle: 'Starting',
  running: 'Running',
  paused: 'Paused',
  stopped: 'Stopped',
  finished: 'Finished',
  failed: 'Failed',
};

const PENDING_TEXT: Record<NonNullable<TrainRunView['pending']>, string> = {
  stop: 'Stopping…',
  pause: 'Pausing…',
  resume: 'Resuming…',
};

/** The activities that belong to a step (its work), as opposed to the evaluations and checkpoints around steps. */
const STEP_WORK: ReadonlySet<TrainProgress['activity']> = new Set(['rollout', 'demonstrations', 'update', 'trace']);

/**
 * The step the run is working on: the step of the activity in progress when that is a step's own work and the
 * step is not done yet; else null (before the first step, between steps, or once the run has ended).
 */
export function stepInProgress(run: Pick<TrainRunView, 'phase' | 'metrics' | 'progress'>): number | null {
  if (run.phase !== 'running' && run.phase !== 'paused') return null;
  const done = run.metrics.at(-1)?.step ?? 0;
  const p = run.progress;
  if (p === null || !STEP_WORK.has(p.activity) || p.step <= done) return null;
  return p.step;
}

/**
 * "Running: step 2 of 2" while step 2 is under way; "Running: 1 of 2 steps done" between steps (an evaluation, a
 * checkpoint); "Stopped: step 1 of 2" once ended (the last step done, which a checkpoint and Resume start from).
 */
export function runHeadline(run: Pick<TrainRunView, 'phase' | 'phaseMessage' | 'pending' | 'loaded' | 'metrics' | 'progress' | 'totalSteps'>): string {
  const done = run.metrics.at(-1)?.step ?? 0;
  const current = stepInProgress(run);
  const where = current !== null ? `step ${current} of ${run.totalSteps}` : run.phase === 'running' || run.phase === 'paused' ? `${done} of ${plural(run.totalSteps, 'step')} done` : `step ${done} of ${run.totalSteps}`;
  if (run.pending) return `${PENDING_TEXT[run.pending]} ${where}`;
  const loaded = run.loaded && run.loaded.total > 0 ? ` (${Math.round((run.loaded.loaded / run.loaded.total) * 100)}%)` : '';
  const message = run.phaseMessage ? ` — ${run.phaseMessage}` : '';
  return `${PHASE_TEXT[run.phase]}${loaded}: ${where}${message}`;
}

/** True while the clock of the activity in progress should tick: the run is working and the activity not done. */
export function clockTicks(phase: TrainPhase, progress: TrainProgress | null): boolean {
  return (phase === 'running' || phase === 'loading') && progress !== null && progress.done < progress.total;
}

/**
 * The activity's seconds so far and left at `nowMs`, its last report having arrived at `receivedAtMs`: while the
 * clock ticks, the time since that report is added to the elapsed time and taken from the estimate; an estimate
 * that has run out says nothing (null) rather than "less than a second left" for a minute.
 */
export function activityClock(progress: TrainProgress, receivedAtMs: number, nowMs: number, ticking: boolean): { elapsedSeconds: number; etaSeconds: number | null } {
  if (!ticking) return { elapsedSeconds: progress.elapsedSeconds, etaSeconds: progress.etaSeconds };
  const since = Math.max(0, (nowMs - receivedAtMs) / 1000);
  const eta = progress.etaSeconds === null ? null : progress.etaSeconds - since;
  return { elapsedSeconds: progress.elapsedSeconds + since, etaSeconds: eta !== null && eta > 0 ? eta : null };
}

/** What the progress line's figures are of: the activity in progress, named for people. */
const ACTIVITY_NAME: Record<TrainProgress['activity'], string> = {
  loading: 'Loading',
  evaluation: 'Evaluation',
  rollout: 'Sampling',
  demonstrations: 'Demonstrations',
  update: 'Update',
  trace: 'Trace',
  checkpoint: 'Checkpoint',
};

/** The activity's share done, in whole percent. */
export function activityPercent(progress: Pick<TrainProgress, 'done' | 'total'>): number {
  return progress.total > 0 ? Math.round((progress.done / progress.total) * 100) : 0;
}

/** "45 s", "3 min 05 s", "1 h 02 min": a clock that visibly moves each second (below an hour). */
export function clockText(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
}

/**
 * The line under the progress bar: "Update: 25% · 12 s so far · about 36 s left · 1 min 52 s since the run started".
 * The percentage, the seconds so far and the estimate are the activity's, and say so (each activity starts its own
 * clock: loading, then a step's sampling, then its update); the run's own time since Start runs on across them, so
 * no clock on the card seems to go back to 0 when one activity hands over to the next.
 */
export function progressFigures(progress: TrainProgress, clock: { elapsedSeconds: number; etaSeconds: number | null }, runSeconds: number): string {
  const percent = activityPercent(progress);
  const eta = etaText(clock.etaSeconds);
  return `${ACTIVITY_NAME[progress.activity]}: ${percent}% · ${clockText(clock.elapsedSeconds)} so far${eta ? ` · ${eta}` : ''} · ${clockText(runSeconds)} since the run started`;
}

/**
 * The "ETA" figure of the latest step: the steps' pace projected over those left while the run goes on; once it has
 * ended, what happened instead ("done", "none: stopped", "none: failed") — a stopped run has no time left to estimate.
 */
export function runEtaText(lastStep: number, etaSeconds: number, totalSteps: number, phase: TrainPhase): string {
  if (lastStep >= totalSteps || phase === 'finished') return 'done';
  if (phase === 'stopped' || phase === 'failed') return `none: ${phase}`;
  return duration(etaSeconds * 1000);
}
