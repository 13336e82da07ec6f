/**
 * The whole engine in headless Chromium on tiny random Qwen models: prefill and batched KV-cache decode logits
 * against the float64 reference model, greedy ids, batched == single-sequence decode, LoRA (and B = 0 == base), and
 * Qwen2's biases and untied head. Each case's largest differences are printed with the tolerance it is held to.
 */
import { describeChecks } from './harness.ts';

describeChecks('the Qwen engine matches the reference model', ['engine', 'engine-lora', 'engine-qwen2'], { timeoutMs: 180_000 });
