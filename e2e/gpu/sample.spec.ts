/**
 * The GPU sampler in headless Chromium (src/gpu-tests/checks/sample.ts, engine-sample.ts): greedy == argmax, the
 * log-probability under the distribution actually used equals the CPU value, the counter-based draws equal the
 * TypeScript hash's and do not depend on the batch, and 20,000 draws per setting pass a chi-square test against
 * softmax(logits / T) after top-k / top-p (false-failure rate 1e-6 per setting, 5 settings: 5e-6 for the spec).
 */
import { describeChecks } from './harness.ts';

describeChecks('GPU sampling matches the CPU reference distribution', ['sample-greedy', 'sample-vocab', 'sample-distribution', 'engine-sample'], { timeoutMs: 180_000 });
