/**
 * One inference engine for every adapter (src/gpu-tests/checks/adapter-slot.ts), in headless Chromium: a small
 * adapter padded to a wider LoRA plan gives the logits of an engine planned for it exactly, bit for bit, and those
 * logits differ from the base model's.
 */
import { describeChecks } from './harness.ts';

describeChecks('a padded adapter plays exactly as the adapter', ['adapter-slot'], { timeoutMs: 240_000 });
