/**
 * The engine's training pass in headless Chromium on tiny random Qwen3 and Qwen2 models (src/gpu-tests/checks/
 * train-engine.ts): chosen-token log-probs of packed sequences (adapter on and off) vs the float64 reference model;
 * the LoRA gradients of Σ c·logp over two accumulated micro-batches vs the reference backward, and vs central finite
 * differences of the GPU loss; one clipped and one plain AdamW step vs the float64 AdamW, and the engine's next logits
 * with the updated adapter. Each case's largest differences are printed with the tolerance it is held to.
 */
import { describeChecks } from './harness.ts';

describeChecks('the training pass matches the reference model', ['train-logprobs', 'train-gradients', 'train-adamw-step'], { timeoutMs: 480_000 });
