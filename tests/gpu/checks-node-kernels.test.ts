/**
 * GPU kernel checks (forward, backward, optimiser) in Node on Dawn, and the device check: see checks-node-suite.ts
 * for how the registry is split over files and seeded.
 *
 * The device check (src/gpu-tests/checks/device.ts) runs whole here, on Dawn's `GPU`: limits at the adapter's
 * maxima, typed errors for a too-small and a missing adapter, loss and recovery, and a destroy that is no loss. It
 * takes no seed. Nothing in it is browser-only once it is handed the `GPU` instead of reading `navigator.gpu`.
 */
import { describe, expect, it } from 'vitest';
import { nodeGpu } from '../../src/gpu/node/node-gpu.ts';
import { checkDevice, DEVICE_EXPECTED } from '../../src/gpu-tests/checks/device.ts';
import { describeNodeChecks } from './checks-node-suite.ts';

describe('device check in Node on Dawn', () => {
  it('device acquisition, typed errors and recovery from a lost device', async () => {
    const report = await checkDevice((await nodeGpu()).gpu);
    console.log(JSON.stringify({ limits: report.limits, shaderF16: report.shaderF16 }));
    expect(report).toMatchObject(DEVICE_EXPECTED);
  });
});

describeNodeChecks('kernels', 'tests/gpu/checks-node-kernels.test.ts');
