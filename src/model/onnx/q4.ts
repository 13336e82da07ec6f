/**
 * 4-bit block quantisation of one linear weight for onnxruntime's `MatMulNBits` (com.microsoft), written the way
 * onnxruntime's `MatMul4BitsQuantizer` writes it for the model builder's default int4 settings (block 32,
 * symmetric — `int4_is_symmetric` defaults to true — so no zero-point input; the kernel then assumes 8):
 *
 *   W (N,K) f32, HF layout (out,in) — exactly the row order MatMulNBits wants for B.
 *   per row n and block b of 32 values along K (K padded with zeros to a multiple of 32):
 *     m      = the value of largest magnitude in the block, sign kept
 *     scale  = m / −8                      (so m maps to code 0; codes run 0..15 around the implicit zero point 8)
 *     q      = clamp(round(w / scale) + 8, 0, 15)
 *     w'     = (q − 8) · scale              (what the kernel multiplies by; `dequantized` holds it for the reference)
 *   packed   uint8 (N, K/32, 16): byte j of a block holds q[2j] in its low nibble and q[2j+1] in its high nibble.
 *   scales   f32 (N·K/32), row-major (n, b); f16 in a q4f16 file (then the codes are chosen with the f16 scale).
 *
 * The rounding of ties does not matter to the tests: the reference runs on `dequantized`, the codes this file chose.
 */

export const Q4_BLOCK = 32;
const ZERO_POINT = 8;

export interface Q4Weight {
  /** (N, ⌈K/32⌉, 16) packed codes. */
  packed: Uint8Array;
  /** (N·⌈K/32⌉) per-block scales. */
  scales: Float32Array;
  /** (N,K) the values the quantised weight stands for, (q − 8)·scale. */
  dequantized: Float32Array;
  blocks: number;
}

/**
 * Quantises W (N,K) row-major. `roundScale` is the precision the scales are stored in (f32, or f16 for q4f16): the
 * codes are chosen with the stored scale, so `dequantized` is exactly what the kernel computes with.
 */
export function quantizeQ4(w: ArrayLike<number>, N: number, K: number, roundScale: (x: number) => number = Math.fround): Q4Weight {
  if (w.length !== N * K) throw new RangeError(`quantizeQ4: ${w.length} values for a (${N}, ${K}) weight`);
  const blocks = Math.ceil(K / Q4_BLOCK);
  const packed = new Uint8Array(N * blocks * (Q4_BLOCK / 2));
  const scales = new Float32Array(N * blocks);
  const dequantized = new Float32Array(N * K);
  const codes = new Uint8Array(Q4_BLOCK);
  for (let n = 0; n < N; n++) {
    for (let b = 0; b < blocks; b++) {
      const k0 = b * Q4_BLOCK;
      const k1 = Math.min(K, k0 + Q4_BLOCK);
      let m = 0;
      for (let k = k0; k < k1; k++) if (Math.abs(w[n * K + k]) > Math.abs(m)) m = w[n * K + k];
      const scale = roundScale(m / -ZERO_POINT);
      const inv = scale === 0 ? 0 : 1 / scale;
      codes.fill(ZERO_POINT); // padding past K encodes zero
      for (let k = k0; k < k1; k++) {
        const q = Math.min(15, Math.max(0, Math.round(w[n * K + k] * inv) + ZERO_POINT));
        codes[k - k0] = q;
        dequantized[n * K + k] = (q - ZERO_POINT) * scale;
      }
      scales[n * blocks + b] = scale;
      const base = (n * blocks + b) * (Q4_BLOCK / 2);
      for (let j = 0; j < Q4_BLOCK / 2; j++) packed[base + j] = codes[2 * j] | (codes[2 * j + 1] << 4);
    }
  }
  return { packed, scales, dequantized, blocks };
}
