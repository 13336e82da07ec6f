/**
 * Cases that kill the mutants Stryker found surviving in src/model/reference/optim.ts (docs/mutation.md): the
 * reference refuses a tensor whose grad, m or v differs in length from its param, and says which step it refused.
 */
import { describe, expect, it } from 'vitest';
import { adamwStepRef, type AdamTensorRef, type AdamWRefSettings } from '../../src/model/reference/optim.ts';

const SETTINGS: AdamWRefSettings = { lr: 0.1, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0, step: 1, maxGradNorm: 0 };
const f64 = (n: number): Float64Array => new Float64Array(n).fill(1);

describe('optim.ts, mutation survivors', () => {
  it('refuses a tensor whose grad, m or v is not as long as its param, each on its own', () => {
    const cases: Array<[string, AdamTensorRef]> = [
      ['grad', { param: f64(2), grad: f64(1), m: f64(2), v: f64(2) }],
      ['m', { param: f64(2), grad: f64(2), m: f64(1), v: f64(2) }],
      ['v', { param: f64(2), grad: f64(2), m: f64(2), v: f64(1) }],
    ];
    for (const [which, tensor] of cases) {
      expect(() => adamwStepRef([tensor], SETTINGS), which).toThrow('adamwStepRef: param, grad, m and v must have one length');
    }
  });

  it('names the step it refuses', () => {
    expect(() => adamwStepRef([], { ...SETTINGS, step: 0 })).toThrow('adamwStepRef: step 0 must be an integer ≥ 1');
    expect(() => adamwStepRef([], { ...SETTINGS, step: 1.5 })).toThrow('adamwStepRef: step 1.5 must be an integer ≥ 1');
  });
});
