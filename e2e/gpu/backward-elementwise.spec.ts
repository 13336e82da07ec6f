/**
 * GPU checks of the row-wise backward kernels and the optimiser in headless Chromium (SwiftShader): rmsnorm,
 * swiglu and chosen-token log-prob backward, and the fused AdamW with the GPU gradient norm, each against the
 * float64 CPU reference (src/gpu-tests/checks/backward-elementwise.ts states the tolerances).
 */
import { describeChecks } from './harness.ts';

describeChecks('GPU backward kernels and AdamW match the CPU reference', ['backward-rmsnorm', 'backward-swiglu', 'backward-token-logprob', 'adamw']);
