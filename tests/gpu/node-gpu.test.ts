/**
 * The Node GPU provider (src/gpu/node/node-gpu.ts): which drivers it tries in which order, and that Dawn gives a
 * device the engine accepts (SwiftShader here: CI installs Debian's chromium and libvulkan1).
 */
import { describe, expect, it } from 'vitest';
import { acquireGpu } from '../../src/gpu/device.ts';
import { driverPlan, findSwiftShaderIcd, nodeGpu, SWIFTSHADER_ICDS } from '../../src/gpu/node/node-gpu.ts';

describe('driverPlan', () => {
  const icd = '/x/vk_swiftshader_icd.json';
  it("tries the machine's drivers first, then SwiftShader", () => {
    expect(driverPlan({}, icd)).toEqual([
      { driver: 'system', icd: null },
      { driver: 'swiftshader', icd },
    ]);
  });
  it("honours the user's VK_ICD_FILENAMES alone", () => {
    expect(driverPlan({ VK_ICD_FILENAMES: '/mine.json' }, icd)).toEqual([{ driver: 'user-icd', icd: '/mine.json' }]);
  });
  it('SQLENV_GPU=swiftshader skips the system, SQLENV_GPU=system never falls back', () => {
    expect(driverPlan({ SQLENV_GPU: 'swiftshader' }, icd)).toEqual([{ driver: 'swiftshader', icd }]);
    expect(driverPlan({ SQLENV_GPU: 'system' }, icd)).toEqual([{ driver: 'system', icd: null }]);
  });
  it('has no fallback without a SwiftShader ICD', () => {
    expect(driverPlan({}, null)).toEqual([{ driver: 'system', icd: null }]);
  });
});

describe('findSwiftShaderIcd', () => {
  it('takes SQLENV_SWIFTSHADER_ICD when it exists, else the first known path that exists', () => {
    const exists = (path: string) => path === '/custom.json' || path === SWIFTSHADER_ICDS[1];
    expect(findSwiftShaderIcd({ SQLENV_SWIFTSHADER_ICD: '/custom.json' }, exists)).toBe('/custom.json');
    expect(findSwiftShaderIcd({ SQLENV_SWIFTSHADER_ICD: '/missing.json' }, exists)).toBeNull();
    expect(findSwiftShaderIcd({}, exists)).toBe(SWIFTSHADER_ICDS[1]);
    expect(findSwiftShaderIcd({}, () => false)).toBeNull();
  });
});

describe('nodeGpu', () => {
  it('gives a GPU on which the engine acquires a device, and the same one on every call', async () => {
    const first = await nodeGpu();
    expect(await nodeGpu()).toBe(first);
    console.log(`node GPU: ${first.adapter} via ${first.driver}${first.icd ? ` (${first.icd})` : ''}`);
    const ctx = await acquireGpu({ gpu: first.gpu, label: 'node-gpu-test' });
    expect(ctx.state).toBe('ready');
    expect(ctx.limits.maxStorageBufferBindingSize).toBeGreaterThanOrEqual(16 * 1024 * 1024);
    ctx.destroy();
    expect(ctx.state).toBe('destroyed');
  });
});
