/**
 * The RoPE table: (cos, sin) of position · theta^(−2i/D), computed in float64 and stored as f32.
 */
import { describe, expect, it } from 'vitest';
import { buildRopeTable } from '../../src/gpu/kernels/rope-table.ts';

describe('buildRopeTable', () => {
  it('holds (cos, sin) per position and frequency, laid out (P, D/2, 2)', () => {
    const D = 8;
    const theta = 10000;
    const table = buildRopeTable(D, theta, 5);
    expect(table.length).toBe(5 * (D / 2) * 2);
    expect([table[0], table[1]]).toEqual([1, 0]); // position 0: no rotation
    for (const [p, i] of [[1, 0], [4, 3], [3, 1]]) {
      const a = p * Math.pow(theta, (-2 * i) / D);
      expect(table[(p * (D / 2) + i) * 2]).toBe(Math.fround(Math.cos(a)));
      expect(table[(p * (D / 2) + i) * 2 + 1]).toBe(Math.fround(Math.sin(a)));
    }
  });

  it('stays exact to f32 rounding at large positions, where f32 angle arithmetic would not', () => {
    const D = 128;
    const table = buildRopeTable(D, 1e6, 40000);
    const [p, i] = [39999, 1];
    const exact = p * Math.pow(1e6, (-2 * i) / D);
    const f32Angle = Math.fround(p * Math.fround(Math.pow(1e6, (-2 * i) / D)));
    expect(table[(p * (D / 2) + i) * 2]).toBe(Math.fround(Math.cos(exact)));
    // An f32 angle (as HF computes it) is off by ~1e-3 rad here; the table is not.
    expect(Math.abs(Math.cos(f32Angle) - Math.cos(exact))).toBeGreaterThan(1e-4);
  });
});
