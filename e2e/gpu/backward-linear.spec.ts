/**
 * Backward of the linear layers in headless Chromium (SwiftShader): matmul_dx (f16, q8, q4 weights in row chunks,
 * accumulate on and off, tiled and simple variants) and the LoRA backward against the float64 reference
 * (src/gpu-tests/checks/backward-linear.ts); each case's largest absolute/relative difference printed and held to the
 * tolerance the check states.
 */
import { describeChecks } from './harness.ts';

describeChecks('linear-layer backward kernels match the CPU reference', ['backward-matmul-dx', 'backward-lora']);
