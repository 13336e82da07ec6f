/**
 * The transformers.js device: WebGPU when an adapter exists (unless WASM is asked for), WASM when there is none —
 * no `navigator.gpu`, an adapter request answered null, or one that throws — and a clear error when WebGPU is
 * demanded where there is none.
 */
import { describe, expect, it } from 'vitest';
import { chooseDevice, probeWebGpu, TjsBackendError } from '../../../src/workers/tjs/tjs-backend.ts';

const adapter = (features: string[]) => ({ features: new Set(features) });

describe('probeWebGpu', () => {
  it('finds no WebGPU without navigator.gpu, with a null adapter, or when the request throws', async () => {
    expect(await probeWebGpu({})).toEqual({ available: false, shaderF16: false });
    expect(await probeWebGpu(undefined)).toEqual({ available: false, shaderF16: false });
    expect(await probeWebGpu({ gpu: { requestAdapter: async () => null } })).toEqual({ available: false, shaderF16: false });
    expect(await probeWebGpu({ gpu: { requestAdapter: () => Promise.reject(new Error('blocked')) } })).toEqual({ available: false, shaderF16: false });
  });

  it('reports an adapter and whether it has shader-f16', async () => {
    expect(await probeWebGpu({ gpu: { requestAdapter: async () => adapter(['subgroups']) } })).toEqual({ available: true, shaderF16: false });
    expect(await probeWebGpu({ gpu: { requestAdapter: async () => adapter(['shader-f16']) } })).toEqual({ available: true, shaderF16: true });
  });
});

describe('chooseDevice', () => {
  it('runs on WASM when WebGPU is absent, whatever was asked but WebGPU', () => {
    const none = { available: false, shaderF16: false };
    expect(chooseDevice(none)).toBe('wasm');
    expect(chooseDevice(none, 'auto')).toBe('wasm');
    expect(chooseDevice(none, 'wasm')).toBe('wasm');
    expect(() => chooseDevice(none, 'webgpu')).toThrow(TjsBackendError);
  });

  it('runs on WebGPU when present, unless WASM is asked for', () => {
    const gpu = { available: true, shaderF16: false };
    expect(chooseDevice(gpu)).toBe('webgpu');
    expect(chooseDevice(gpu, 'webgpu')).toBe('webgpu');
    expect(chooseDevice(gpu, 'wasm')).toBe('wasm');
  });
});
