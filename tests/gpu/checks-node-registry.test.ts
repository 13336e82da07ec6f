/**
 * The plumbing of the GPU checks' Node run, without a GPU: every registered check falls into exactly one Node file
 * (checks-node-suite.ts), and the run's seed is drawn fresh or replayed from GPU_CHECK_SEED (src/gpu-tests/seed.ts).
 */
import { describe, expect, it } from 'vitest';
import { CHECK_NAMES, CHECKS, failingCases, reportLines, type CheckReport } from '../../src/gpu-tests/registry.ts';
import { CheckSeedError, MAX_SEED, parseSeed, runSeed } from '../../src/gpu-tests/seed.ts';
import { nodeGroup, type NodeGroup } from './checks-node-suite.ts';

describe('the Node split of the registry', () => {
  it('puts every check in one group, and each group has checks', () => {
    const groups = new Map<NodeGroup, string[]>();
    for (const name of CHECK_NAMES) groups.set(nodeGroup(name), [...(groups.get(nodeGroup(name)) ?? []), name]);
    expect([...groups.keys()].sort()).toEqual(['engine', 'heavy', 'kernels', 'learning', 'train']);
    expect([...groups.values()].flat().sort()).toEqual(Object.keys(CHECKS).sort());
    expect(groups.get('learning')).toEqual(['train-learning-grpo', 'train-learning-grpo-lr0', 'train-learning-sft', 'train-learning-sft-lr0', 'train-learning-grpo-reads', 'train-learning-grpo-reads-lr0']);
    expect([...(groups.get('heavy') ?? [])].sort()).toEqual(['sample-distribution', 'train-adamw-step', 'train-gradients', 'train-logprobs']);
    expect(nodeGroup('train-model-api')).toBe('train');
    expect(nodeGroup('engine-sample')).toBe('engine');
    expect(nodeGroup('a-check-added-later')).toBe('kernels');
  });
});

describe('the run seed', () => {
  it('replays GPU_CHECK_SEED', () => {
    expect(runSeed({ GPU_CHECK_SEED: '12345' })).toEqual({ seed: 12345, source: 'env' });
    expect(runSeed({ GPU_CHECK_SEED: ` ${MAX_SEED} ` })).toEqual({ seed: MAX_SEED, source: 'env' });
  });
  it('draws a fresh seed in range when unset or empty', () => {
    const seeds = Array.from({ length: 20 }, () => runSeed({ GPU_CHECK_SEED: '' }));
    for (const s of seeds) {
      expect(s.source).toBe('drawn');
      expect(Number.isInteger(s.seed) && s.seed >= 1 && s.seed <= MAX_SEED).toBe(true);
    }
    expect(new Set(seeds.map((s) => s.seed)).size).toBeGreaterThan(1);
    expect(runSeed({}).source).toBe('drawn');
  });
  it.each(['0', '-3', '1.5', 'abc', '1e3', String(MAX_SEED + 1)])('refuses %s with a CheckSeedError', (value) => {
    expect(() => parseSeed(value)).toThrow(CheckSeedError);
  });
});

describe('report lines', () => {
  const report: CheckReport = {
    check: 'x',
    seed: 7,
    adapter: 'a/b',
    notes: ['n'],
    pass: false,
    ms: 1000,
    results: [
      { label: 'good', shape: 's', count: 1, maxAbs: 0, maxRel: 0, worst: 0, tol: { abs: 1e-5, rel: 0 }, pass: true },
      { label: 'bad', shape: 't', count: 2, maxAbs: 1, maxRel: 1, worst: 1, tol: { abs: 1e-5, rel: 0 }, pass: false },
    ],
  };
  it('prints every comparison, the seed and the notes', () => {
    const lines = reportLines(report);
    expect(lines).toHaveLength(4);
    expect(lines[1]).toMatch(/bad .* maxAbs=1\.00e\+0 .* FAIL$/);
    expect(lines[2]).toContain('seed 7');
    expect(lines[3]).toBe('note: n');
  });
  it('names the failing cases, and a check that compared nothing', () => {
    expect(failingCases(report)).toEqual(['bad [t]: maxAbs=1.00e+0 maxRel=1.00e+0 worst index 1']);
    expect(failingCases({ ...report, results: [] })).toEqual(['x returned no comparisons']);
  });
});
