/**
 * How the fused layer groups its projections under a device's storage-buffer limit (src/gpu/engine/fused-layer.ts),
 * and the bindings each fused-linear variant needs (src/gpu/kernels/fused-linear.ts). Pure TS; the kernels and the
 * fused engine themselves are checked on the GPU (src/gpu-tests/checks/fused.ts).
 */
import { describe, expect, it } from 'vitest';
import { fusedLayerDispatches, layerGroups } from '../../src/gpu/engine/fused-layer.ts';
import { fusedBindingCount, fusedLinearCode } from '../../src/gpu/kernels/fused-linear.ts';
import type { Projection } from '../../src/model/weights.ts';

const none = () => false;
const all = () => true;
const only = (...ps: Projection[]) => (p: Projection) => ps.includes(p);

describe('fusedBindingCount', () => {
  it.each([
    [{ norm: true, gather: false, lora: [false, false, false], epilogue: 'store' as const }, 8], // x, norm, 3 × (w, out)
    [{ norm: true, gather: false, lora: [true, true, true], epilogue: 'store' as const }, 14], // + 3 × (a, b)
    [{ norm: false, gather: false, lora: [true], epilogue: 'residual' as const }, 5], // x, w, a, b, acc
    [{ norm: true, gather: false, lora: [true, true], epilogue: 'swiglu' as const }, 9], // x, norm, 2 × (w, a, b), out
    [{ norm: true, gather: true, lora: [false], epilogue: 'store' as const }, 5], // x, norm, rowIds, w, out
  ])('%o binds %i storage buffers', (spec, n) => {
    expect(fusedBindingCount(spec)).toBe(n);
  });

  it('generates as many storage bindings as it counts', () => {
    const spec = { format: 'q4' as const, norm: true, gather: false, lora: [true, false, true], epilogue: 'store' as const };
    expect(fusedLinearCode(spec).match(/var<storage/g)?.length).toBe(fusedBindingCount(spec));
  });

  it('refuses an epilogue with the wrong number of projections', () => {
    expect(() => fusedLinearCode({ format: 'f16', norm: false, gather: false, lora: [false, false], epilogue: 'residual' })).toThrow(/residual/);
    expect(() => fusedLinearCode({ format: 'f16', norm: true, gather: false, lora: [false], epilogue: 'swiglu' })).toThrow(/swiglu/);
  });
});

describe('layerGroups', () => {
  it('puts q, k and v in one dispatch without LoRA: 7 dispatches per layer', () => {
    const g = layerGroups(none, 8);
    expect(g).toEqual({ qkv: [['q_proj', 'k_proj', 'v_proj']], swiglu: true });
    expect(fusedLayerDispatches(g)).toBe(7);
  });

  it('splits q/k/v with LoRA to fit the limit, in order', () => {
    expect(layerGroups(all, 8).qkv).toEqual([['q_proj'], ['k_proj'], ['v_proj']]);
    expect(layerGroups(all, 12).qkv).toEqual([['q_proj', 'k_proj'], ['v_proj']]);
    expect(layerGroups(all, 14).qkv).toEqual([['q_proj', 'k_proj', 'v_proj']]);
    expect(layerGroups(only('v_proj'), 10).qkv).toEqual([['q_proj', 'k_proj', 'v_proj']]);
    expect(layerGroups(only('v_proj'), 8).qkv).toEqual([['q_proj', 'k_proj'], ['v_proj']]);
  });

  it('keeps gate/up + SwiGLU in one dispatch when its 9 bindings fit, else three', () => {
    expect(layerGroups(all, 9).swiglu).toBe(true);
    expect(layerGroups(all, 8).swiglu).toBe(false);
    expect(layerGroups(only('gate_proj'), 8).swiglu).toBe(true);
    expect(fusedLayerDispatches(layerGroups(all, 8))).toBe(3 + 4 + 3 + 1);
    expect(fusedLayerDispatches(layerGroups(all, 12))).toBe(2 + 4 + 1 + 1);
  });
});
