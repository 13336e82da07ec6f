/**
 * Attention backward in headless Chromium (SwiftShader): dq, dk, dv of causal GQA/MHA attention over a packed batch
 * of sequences in their own cache slots, against the float64 reference (src/gpu-tests/checks/backward-attention.ts);
 * each case's largest absolute/relative difference printed and held to the tolerance the check states.
 */
import { describeChecks } from './harness.ts';

// Two consecutive seeds per run (the spec ran seeds 1 and 2 before seeds were drawn per run).
describeChecks('attention backward matches the CPU reference', ['backward-attention'], { draws: 2 });
