/**
 * GPU kernel checks in headless Chromium (SwiftShader): every kernel against the float64 CPU reference on fresh
 * random inputs, each case's largest absolute/relative difference printed and held to the tolerance the check
 * states (src/gpu-tests/checks/*). Shapes are small: SwiftShader runs about 1 GFLOP/s.
 */
import { describeChecks } from './harness.ts';

describeChecks('GPU kernels match the CPU reference', ['matmul', 'rmsnorm', 'rope', 'embedding', 'swiglu', 'residual', 'attention', 'logsoftmax']);
