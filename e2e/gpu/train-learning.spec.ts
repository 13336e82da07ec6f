/**
 * `GpuTrainableModel` in headless Chromium on the toy task (src/gpu-tests/checks/train-learning.ts): its API
 * (batched generate == one request at a time, sampled log-probs == forward scores, adapter and optimizer-state round
 * trips, bad adapters refused), then the learning runs of tests/train/learning.test.ts on the GPU with the same
 * thresholds — GRPO raises the fresh mean reward by ≥ 0.3 in 30 steps, SFT lowers the held-back NLL by ≥ 25 % in 30
 * steps — and the same runs at lr = 0, which must not move either measure. Each case prints its figures.
 *
 * Time on SwiftShader (2 shared cores): a GRPO case is 30 steps of 32 episodes plus 2 × 64 fresh episodes, 38.5 s
 * on 2026-11-28 (5–8 min when this was written, before the CPU adapter's barrier-free kernels and the attention
 * backward's row passes); an SFT case ≈ 10 s; the API case ≈ 14 s. Fewer
 * episodes per step were tried on the CPU reference and do not learn by the stated margin (+0.08…0.17 in 20 steps of
 * 16 episodes), so the GPU runs keep the CPU test's settings and thresholds.
 */
import { describeChecks } from './harness.ts';

// The learning runs use the toy task's own fixed seeds (src/train/toy-run.ts); the run's seed is printed all the same.
describeChecks(
  'the WebGPU trainable model learns the toy task',
  ['train-model-api', 'train-learning-grpo', 'train-learning-grpo-lr0', 'train-learning-sft', 'train-learning-sft-lr0'],
  { timeoutMs: (name) => (name.startsWith('train-learning-grpo') ? 900_000 : 300_000) },
);
