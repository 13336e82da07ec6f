/**
 * What the Train view says and offers about a run an earlier page left unfinished (an `ActiveRunRecord` the worker
 * still holds): pure functions of the record and the model loaded now, so the wording and the choice are tested
 * without a page (tests/ui/train/interrupted-plan.test.ts); the train slice's `resumeInterruptedRun` carries the plan out.
 *
 * Resuming needs the run's model: the loaded one when its label matches; else a Hub repo or a served folder loads
 * again by itself; a folder the user picked cannot be reopened by the page (browsers give no lasting access to it),
 * so the user picks it again in Watch's Model panel. The run continues from its newest checkpoint, or, when it had
 * saved none, starts again from step 0 with the same settings.
 */
import type { ActiveRunRecord } from '../../workers/train-protocol.ts';

export type ModelStep = { kind: 'loaded' } | { kind: 'load'; what: string } | { kind: 'pick'; folder: string } | { kind: 'unknown' };

export interface InterruptedPlan {
  /** "A GRPO run on demo was interrupted at step 1 of 3." */
  headline: string;
  /** How resuming goes: where from, and what it loads first. */
  detail: string;
  /** The button's label. */
  action: string;
  /** Whether the button can work now (false: the user must pick the model folder first). */
  canResume: boolean;
  from: 'checkpoint' | 'start';
  model: ModelStep;
}

function modelStep(record: ActiveRunRecord, loadedLabel: string | null): ModelStep {
  if (loadedLabel === record.model) return { kind: 'loaded' };
  const source = record.source;
  if (source === null) return { kind: 'unknown' };
  switch (source.kind) {
    case 'hub':
      return { kind: 'load', what: `${source.repo} from the Hub` };
    case 'url':
      return { kind: 'load', what: `the folder ${source.url}` };
    case 'files':
      return { kind: 'pick', folder: source.folder };
    default:
      return source satisfies never;
  }
}

export function interruptedPlan(record: ActiveRunRecord, loadedLabel: string | null): InterruptedPlan {
  const algo = record.request.config.algo === 'grpo' ? 'GRPO' : 'SFT';
  const headline = `${algo === 'SFT' ? 'An' : 'A'} ${algo} run on ${record.request.dataset} was interrupted at step ${record.step} of ${record.totalSteps} (the page was reloaded or closed while it ran).`;
  const from = record.checkpointId !== null ? 'checkpoint' : 'start';
  const where = from === 'checkpoint' ? `It continues from its last checkpoint (step ${record.checkpointStep}).` : 'It had saved no checkpoint yet, so it starts again from step 0 with the same settings.';
  const model = modelStep(record, loadedLabel);
  const first =
    model.kind === 'loaded'
      ? `${record.model} is loaded.`
      : model.kind === 'load'
        ? `${record.model} is loaded again first, from ${model.what}.`
        : model.kind === 'pick'
          ? `${record.model} came from a folder on this computer (${model.folder}), which the page cannot open again by itself: pick that folder again in Watch’s Model panel, then resume.`
          : `Load ${record.model} in Watch’s Model panel, then resume.`;
  return {
    headline,
    detail: `${where} ${first}`,
    action: from === 'checkpoint' ? 'Resume from the last checkpoint' : 'Start it again',
    canResume: model.kind === 'loaded' || model.kind === 'load',
    from,
    model,
  };
}
