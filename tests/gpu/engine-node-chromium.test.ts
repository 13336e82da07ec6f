/**
 * The engine gives the same logits in Node on Dawn as in Chromium: one tiny random Qwen3 model per run (seeded, see
 * src/gpu-tests/seed.ts; GPU_CHECK_SEED replays it), prefill of two prompts and two greedy decode steps
 * (src/gpu-tests/engine-logits.ts), run here on the Node provider and in headless Chromium through the GPU harness
 * page (served on 127.0.0.1 by e2e/model/serve.ts). Both are Dawn over SwiftShader on this machine, running the same
 * WGSL on the same inputs, so every logit must match bit for bit; a difference is reported as the number of
 * differing logits and the largest one. Needs Debian's chromium (CHROMIUM_PATH), as the e2e suite does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withChromium } from '../../e2e/model/serve.ts';
import { acquireGpu, type GpuContext } from '../../src/gpu/device.ts';
import { nodeGpu } from '../../src/gpu/node/node-gpu.ts';
import { decodeF32, engineLogits, type EngineLogits } from '../../src/gpu-tests/engine-logits.ts';
import { adapterLabel } from '../../src/gpu-tests/registry.ts';
import { describeSeed, runSeed } from '../../src/gpu-tests/seed.ts';

const FILE = 'tests/gpu/engine-node-chromium.test.ts';

/** How two runs' logits differ: how many are not bit-identical, and the largest absolute difference. */
function difference(a: Float32Array, b: Float32Array): { differing: number; maxAbs: number } {
  const ua = new Uint32Array(a.buffer, a.byteOffset, a.length);
  const ub = new Uint32Array(b.buffer, b.byteOffset, b.length);
  let differing = 0;
  let maxAbs = 0;
  for (let i = 0; i < a.length; i++) {
    if (ua[i] === ub[i]) continue;
    differing++;
    maxAbs = Math.max(maxAbs, Math.abs(a[i] - b[i]));
  }
  return { differing, maxAbs };
}

describe('the engine in Node on Dawn and in Chromium', () => {
  const run = runSeed(process.env);
  let ctx: GpuContext | null = null;

  beforeAll(async () => {
    ctx = await acquireGpu({ gpu: (await nodeGpu()).gpu, label: 'engine-node-chromium' });
    console.log(describeSeed(run, `npx vitest run ${FILE}`));
  });
  afterAll(() => ctx?.destroy());

  it('gives bit-identical logits for the same seed', { timeout: 300_000 }, async () => {
    if (!ctx) throw new Error('engine-node-chromium: no GPU context (beforeAll failed)');
    const t0 = performance.now();
    const node = await engineLogits(ctx, run.seed, adapterLabel(ctx));
    const nodeMs = performance.now() - t0;
    // Timed inside the page, so the figure excludes the bundle build and Chromium's start (printed, never asserted).
    const { logits: page, ms: pageMs } = await withChromium('src/gpu-tests/harness.ts', 'gpu-harness', {}, (p) =>
      p.evaluate(async (s): Promise<{ logits: EngineLogits; ms: number }> => {
        const start = performance.now();
        const logits = await window.gpuHarness!.engineLogits(s);
        return { logits, ms: performance.now() - start };
      }, run.seed),
    );
    const a = decodeF32(node.logits);
    const b = decodeF32(page.logits);
    const d = difference(a, b);
    console.log(`seed ${run.seed}: node [${node.adapter}] vs chromium [${page.adapter}]: ${node.rows} rows × V=${node.vocab}; ${d.differing} of ${a.length} logits differ, max |Δ| = ${d.maxAbs.toExponential(2)}; greedy ${node.greedy.join(',')}; engine time: node ${(nodeMs / 1000).toFixed(1)} s, chromium ${(pageMs / 1000).toFixed(1)} s (first use of each device: pipelines compiled in both)`);
    // Not a degenerate run: finite logits of a few units (the tiny model's scale), so matching zeros cannot pass.
    expect(a.length).toBe(node.rows * node.vocab);
    expect(a.every(Number.isFinite)).toBe(true);
    expect(a.subarray(0, node.vocab).reduce((m, x) => Math.max(m, Math.abs(x)), 0)).toBeGreaterThan(0.1);
    expect([page.rows, page.vocab, page.greedy]).toEqual([node.rows, node.vocab, node.greedy]);
    expect(b.length).toBe(a.length);
    expect(d, `logits differing between Node and Chromium (seed ${run.seed})`).toEqual({ differing: 0, maxAbs: 0 });
  });
});
