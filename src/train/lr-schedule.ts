/**
 * The learning rate of optimizer step `step` (1-based: the run's steps are 1..T, T = `steps`), W = `warmupSteps`:
 *
 *   warm-up, step ≤ W:   lr · step / W                      (reaches lr at step W; never a step at rate 0)
 *   'constant', step > W: lr
 *   'linear',   step > W: lr · (T − step + 1) / (T − W)      (lr at step W + 1, lr / (T − W) at the last step)
 *
 * The linear decay is transformers' `get_linear_schedule_with_warmup` — TRL's default `lr_scheduler_type="linear"` —
 * with its 0-based scheduler count k = step − 1: max(0, (T − k) / (T − W)). The warm-up keeps the trainer's own
 * convention (transformers' first step runs at k / W = 0). Why decay: a policy-gradient step is noisy, and AdamW moves
 * every weight by about lr whatever the gradient's size, so at a constant rate the policy keeps drifting around the
 * optimum it has found; decaying the rate lets the last steps settle (the reads task: docs/training-in-the-browser.md).
 * A step past T (a resumed run asked for more steps than it was planned with) gets rate 0 under 'linear'.
 */
import type { TrainConfig } from './types.ts';

export type ScheduleSettings = Pick<TrainConfig, 'lr' | 'warmupSteps' | 'steps' | 'lrSchedule'>;

export function learningRateAt(settings: ScheduleSettings, step: number): number {
  const { lr, warmupSteps: w, steps: total, lrSchedule } = settings;
  if (w > 0 && step <= w) return (lr * step) / w;
  if (lrSchedule === 'constant') return lr;
  return (lr * Math.max(0, total - step + 1)) / (total - w);
}
