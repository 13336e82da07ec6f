/**
 * Quantised base weights in headless Chromium (src/gpu-tests/checks/quant.ts): q8 and q4 matmul (every variant) and
 * embedding against the decoded weights, and the tiny Qwen3 model's logits with q8 / q4 weights against the f16
 * engine, the error printed and held to the stated bounds (QUANT_BOUNDS).
 */
import { describeChecks } from './harness.ts';

describeChecks('quantised weights', ['quant-matmul', 'quant-embedding', 'quant-engine'], { timeoutMs: 180_000 });
