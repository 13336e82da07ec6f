/**
 * The sampler's counter-based random numbers in TypeScript, bit for bit what sample.wgsl computes: pcg3d
 * (Jarzynski & Olano 2020) of (seed, sequence, step), its x word's top 24 bits as a uniform on [0, 1). A draw
 * depends only on its own key, never on which other sequences share the batch or on how many draws came before.
 * Pure TS: the Node tests check its uniformity and the GPU check compares the GPU's draws with it.
 */

/** A sampler key: one draw per (seed, sequence, step), each a u32. */
export interface SampleKey {
  seed: number;
  sequence: number;
  step: number;
}

/** pcg3d of three u32s (u32 arithmetic wraps, as in WGSL). */
export function pcg3d(x: number, y: number, z: number): [number, number, number] {
  let a = (Math.imul(x >>> 0, 1664525) + 1013904223) >>> 0;
  let b = (Math.imul(y >>> 0, 1664525) + 1013904223) >>> 0;
  let c = (Math.imul(z >>> 0, 1664525) + 1013904223) >>> 0;
  a = (a + Math.imul(b, c)) >>> 0;
  b = (b + Math.imul(c, a)) >>> 0;
  c = (c + Math.imul(a, b)) >>> 0;
  a = (a ^ (a >>> 16)) >>> 0;
  b = (b ^ (b >>> 16)) >>> 0;
  c = (c ^ (c >>> 16)) >>> 0;
  a = (a + Math.imul(b, c)) >>> 0;
  b = (b + Math.imul(c, a)) >>> 0;
  c = (c + Math.imul(a, b)) >>> 0;
  return [a, b, c];
}

/** The sampler's uniform for a key: a multiple of 2^-24 in [0, 1). */
export function sampleUniform(key: SampleKey): number {
  return (pcg3d(key.seed, key.sequence, key.step)[0] >>> 8) / 16777216;
}
