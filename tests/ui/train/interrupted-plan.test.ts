/**
 * What the Train view says about an interrupted run (src/ui/train/interrupted-plan.ts): where it stopped, where it
 * resumes from (its checkpoint, or step 0), and how its model comes back (already loaded, loaded again from the Hub
 * or a served folder, or a picked folder the user must pick again — then Resume waits).
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_SFT_CONFIG } from '../../../src/train/types.ts';
import type { ActiveRunRecord } from '../../../src/workers/train-protocol.ts';
import { interruptedPlan } from '../../../src/ui/train/interrupted-plan.ts';

const record = (patch: Partial<ActiveRunRecord> = {}): ActiveRunRecord => ({
  runId: 'run-1',
  request: { dataset: 'demo', config: { ...DEFAULT_SFT_CONFIG, steps: 10 } },
  model: 'Qwen/Qwen3-0.6B',
  source: { kind: 'hub', repo: 'Qwen/Qwen3-0.6B' },
  step: 4,
  totalSteps: 10,
  checkpointId: 'run-1@3',
  checkpointStep: 3,
  startedAt: 1,
  updatedAt: 2,
  ...patch,
});

describe('interruptedPlan', () => {
  it('resumes from the checkpoint, loading a Hub model again by itself', () => {
    const plan = interruptedPlan(record(), null);
    expect(plan.headline).toBe('An SFT run on demo was interrupted at step 4 of 10 (the page was reloaded or closed while it ran).');
    expect(plan.detail).toBe('It continues from its last checkpoint (step 3). Qwen/Qwen3-0.6B is loaded again first, from Qwen/Qwen3-0.6B from the Hub.');
    expect(plan).toMatchObject({ action: 'Resume from the last checkpoint', canResume: true, from: 'checkpoint', model: { kind: 'load' } });
  });

  it('uses the model already loaded, and starts again from step 0 when no checkpoint was saved', () => {
    const plan = interruptedPlan(record({ checkpointId: null, checkpointStep: 0, step: 0 }), 'Qwen/Qwen3-0.6B');
    expect(plan).toMatchObject({ action: 'Start it again', canResume: true, from: 'start', model: { kind: 'loaded' } });
    expect(plan.detail).toBe('It had saved no checkpoint yet, so it starts again from step 0 with the same settings. Qwen/Qwen3-0.6B is loaded.');
  });

  it('asks for a picked folder again, and waits for it', () => {
    const plan = interruptedPlan(record({ source: { kind: 'files', folder: 'Qwen3-0.6B' }, model: 'Qwen3-0.6B' }), 'something else');
    expect(plan.canResume).toBe(false);
    expect(plan.detail).toContain('came from a folder on this computer (Qwen3-0.6B), which the page cannot open again by itself: pick that folder again');
    expect(interruptedPlan(record({ source: { kind: 'files', folder: 'Qwen3-0.6B' }, model: 'Qwen3-0.6B' }), 'Qwen3-0.6B').canResume).toBe(true);
  });

  it('says to load the model when its source is unknown', () => {
    expect(interruptedPlan(record({ source: null }), null)).toMatchObject({ canResume: false, model: { kind: 'unknown' } });
  });
});
