/**
 * Weight storage formats of the base model's matrices, and their CPU encoders. A (N, K) matrix in Hugging Face
 * Linear layout is stored row by row as u32 words; every kernel that reads weights (matmul, the embedding gather)
 * composes the WGSL reader of its format (`wgslWeightReader`) and calls `w_pair(n, p)` for W[n, 2p], W[n, 2p+1].
 *
 *   f16  K/2 words per row: two IEEE halves per word (f16.ts). The reference path.
 *   q8   K/4 words of codes (4 × int8, byte j of a word is element 4i+j) then K/32 words of scales (f32 bits).
 *   q4   K/8 words of codes (8 × 4-bit, nibble j of a word is element 8i+j, stored as code + 8 in 0..15) then
 *        K/32 words of scales.
 *   q4m  K/8 words of codes (8 × 4-bit, nibble j is element 8i+j, code 0..15) then K/32 words, one per group:
 *        f16 step d in the low half, f16 minimum m in the high half (llama.cpp's Q4_1 grid). Same bytes as q4.
 *
 * q8 and q4 are symmetric and group-wise along K, QUANT_GROUP = 32 elements per group, one f32 scale per group:
 *   scale = fround(max|w| / QMAX),  code = clamp(round(w / scale), −QMAX, QMAX),  w' = fround(code · scale)
 * with QMAX = 127 (q8) or 7 (q4); an all-zero group has scale 0 and codes 0. The GPU dequantises with the same f32
 * product, so `decodeWeight` gives exactly the values the kernels compute with (the tests' reference weights).
 * q4m is asymmetric: its 16 levels span the group's [min, max] instead of q4's 15 levels over [−max|w|, max|w|],
 * so the step is (max − min)/15 rather than 2·max|w|/14: at least 7/7.5 of q4's, about half of it for a skewed
 * group. d = f16(max − min)/15 rounded up (so the top level reaches max), m = f16(min), code = clamp(round((w −
 * m)/d), 0, 15), w' = fround(code·d + m); code·d is exact in f32 (4 × 11 significant bits), so an fma or a separate
 * multiply and add on the GPU give the same single rounding. Error bound per element: d/2 plus m's f16 rounding.
 * Scales sit at the end of each row so a row is self-contained and whole-row chunks (split.ts) still work.
 * Pure TS: tested in Node.
 */
import { GpuShapeError } from './errors.ts';
import { f16BitsToNumber, f32ToF16Bits, packF16Matrix } from './f16.ts';

export type WeightFormat = 'f16' | 'q8' | 'q4' | 'q4m';
export const WEIGHT_FORMATS: readonly WeightFormat[] = ['f16', 'q8', 'q4', 'q4m'];

/**
 * The engine's default for decode: 8-bit groups. Measured (bench/formats.bench.ts, synthetic Qwen3-0.6B-shaped
 * weights with heavy tails and activations with outlier channels): q8 moves each matmul's output by 0.6–0.7% RMS,
 * the 4-bit formats by 8–10% (q4m) and 10–14% (q4), and through 28 layers the 4-bit logits drift by tens of percent
 * (see the bench's end-to-end table) where q8's stay within a few percent. A small model has no redundancy to absorb
 * that, so a real checkpoint is unlikely to lose quality only at 8 bits; q4m (4-bit with a q8 embedding / head,
 * 430 MiB for Qwen3-0.6B against q8's 640 MiB) is the choice when memory or bandwidth is short. f16 stays the
 * reference, selectable per model.
 */
export const DEFAULT_DECODE_WEIGHTS: WeightFormat = 'q8';

/** Elements of K sharing one scale. */
export const QUANT_GROUP = 32;

const QMAX: Record<'q8' | 'q4', number> = { q8: 127, q4: 7 };
const CODES_PER_WORD: Record<Exclude<WeightFormat, 'f16'>, number> = { q8: 4, q4: 8, q4m: 8 };

/**
 * The format of the embedding table and the LM head (the tied embedding, for Qwen3) when the projections are stored
 * in `format`: 'q4m' keeps them at 'q8' (they are a quarter of Qwen3-0.6B's parameters but read once per token,
 * and the head's error lands on the logits with no later layer to average it out); every other format stores all
 * matrices alike.
 */
export function tableFormat(format: WeightFormat): WeightFormat {
  return format === 'q4m' ? 'q8' : format;
}

/** Every format a model stored in `format` uses (its projections' and its table's): what the ops must compile. */
export function matrixFormats(format: WeightFormat): WeightFormat[] {
  return [...new Set([format, tableFormat(format)])];
}

/** Throws unless a (rows, cols) matrix can be stored in `format`. */
export function checkWeightShape(format: WeightFormat, rows: number, cols: number, what = 'weight'): void {
  if (!Number.isInteger(rows) || rows <= 0 || !Number.isInteger(cols) || cols <= 0) throw new GpuShapeError(what, `shape (${rows}, ${cols}) must be positive integers`);
  if (format === 'f16' && cols % 2 !== 0) throw new GpuShapeError(what, `K = ${cols} must be even to pack f16 pairs`);
  if (format !== 'f16' && cols % QUANT_GROUP !== 0) throw new GpuShapeError(what, `K = ${cols} must be a multiple of ${QUANT_GROUP} for ${format} groups; store this model as f16`);
}

/** u32 words per row of a (N, K) matrix. */
export function weightRowWords(format: WeightFormat, cols: number): number {
  switch (format) {
    case 'f16':
      return cols / 2;
    case 'q8':
    case 'q4':
    case 'q4m':
      return cols / CODES_PER_WORD[format] + cols / QUANT_GROUP;
    default:
      throw new GpuShapeError('weightRowWords', `unknown format ${format satisfies never}`);
  }
}

/** Bytes of a (rows, cols) matrix in `format`. */
export function weightBytes(format: WeightFormat, rows: number, cols: number): number {
  return rows * weightRowWords(format, cols) * 4;
}

/** Encodes a row-major (rows, cols) matrix as the format's words (rows × weightRowWords). */
export function encodeWeight(format: WeightFormat, values: ArrayLike<number>, rows: number, cols: number, what = 'weight'): Uint32Array {
  checkWeightShape(format, rows, cols, what);
  if (values.length !== rows * cols) throw new GpuShapeError(what, `expected ${rows}×${cols} = ${rows * cols} values, got ${values.length}`);
  if (format === 'f16') return packF16Matrix(values, rows, cols, what);
  if (format === 'q4m') return encodeQ4m(values, rows, cols, what);
  const qmax = QMAX[format];
  const per = CODES_PER_WORD[format];
  const bits = 32 / per;
  const mask = (1 << bits) - 1;
  const rowWords = weightRowWords(format, cols);
  const codeWords = cols / per;
  const words = new Uint32Array(rows * rowWords);
  const scaleView = new Float32Array(1);
  const scaleBits = new Uint32Array(scaleView.buffer);
  for (let n = 0; n < rows; n++) {
    const row = n * cols;
    const out = n * rowWords;
    for (let g = 0; g < cols / QUANT_GROUP; g++) {
      let amax = 0;
      for (let k = g * QUANT_GROUP; k < (g + 1) * QUANT_GROUP; k++) {
        const v = values[row + k];
        if (!Number.isFinite(v)) throw new GpuShapeError(what, `element (${n}, ${k}) = ${v} is not finite; cannot quantise`);
        amax = Math.max(amax, Math.abs(Math.fround(v)));
      }
      const scale = Math.fround(amax / qmax);
      scaleView[0] = scale;
      words[out + codeWords + g] = scaleBits[0];
      for (let k = g * QUANT_GROUP; k < (g + 1) * QUANT_GROUP; k++) {
        const code = scale === 0 ? 0 : Math.max(-qmax, Math.min(qmax, Math.round(Math.fround(values[row + k]) / scale)));
        const stored = format === 'q4' ? code + 8 : code & 0xff;
        words[out + Math.floor(k / per)] |= (stored & mask) << (bits * (k % per));
      }
    }
  }
  return words;
}

/** The largest magnitude q4m's f16 step and minimum can hold (f16's largest finite value). */
const Q4M_RANGE = 65504;

function encodeQ4m(values: ArrayLike<number>, rows: number, cols: number, what: string): Uint32Array {
  const rowWords = weightRowWords('q4m', cols);
  const codeWords = cols / 8;
  const words = new Uint32Array(rows * rowWords);
  for (let n = 0; n < rows; n++) {
    const row = n * cols;
    const out = n * rowWords;
    for (let g = 0; g < cols / QUANT_GROUP; g++) {
      let lo = Infinity;
      let hi = -Infinity;
      for (let k = g * QUANT_GROUP; k < (g + 1) * QUANT_GROUP; k++) {
        const v = Math.fround(values[row + k]);
        if (!Number.isFinite(v)) throw new GpuShapeError(what, `element (${n}, ${k}) = ${values[row + k]} is not finite; cannot quantise`);
        lo = Math.min(lo, v);
        hi = Math.max(hi, v);
      }
      if (Math.abs(lo) > Q4M_RANGE || hi - lo > Q4M_RANGE) throw new GpuShapeError(what, `row ${n} group ${g} spans [${lo}, ${hi}], beyond q4m's f16 step and minimum; store this model as q8`);
      const mBits = f32ToF16Bits(lo);
      const m = f16BitsToNumber(mBits);
      // The step rounded UP to f16, so that 15 steps from m reach the group's max (m itself may round either way).
      // (m rounding above a constant group's value leaves a span of 0: step 0, every code 0, w' = m.)
      let dBits = f32ToF16Bits(Math.max(0, hi - m) / 15);
      if (f16BitsToNumber(dBits) * 15 + m < hi && dBits < 0x7bff) dBits++;
      const d = f16BitsToNumber(dBits);
      words[out + codeWords + g] = dBits | (mBits << 16);
      for (let k = g * QUANT_GROUP; k < (g + 1) * QUANT_GROUP; k++) {
        const code = d === 0 ? 0 : Math.max(0, Math.min(15, Math.round((Math.fround(values[row + k]) - m) / d)));
        words[out + (k >>> 3)] |= code << (4 * (k % 8));
      }
    }
  }
  return words;
}

/** The values the GPU computes with, from the format's words: (rows, cols) float64 holding f32 values. */
export function decodeWeight(format: WeightFormat, words: Uint32Array, rows: number, cols: number): Float64Array {
  checkWeightShape(format, rows, cols);
  const rowWords = weightRowWords(format, cols);
  if (words.length !== rows * rowWords) throw new GpuShapeError('decodeWeight', `expected ${rows * rowWords} words, got ${words.length}`);
  const out = new Float64Array(rows * cols);
  if (format === 'f16') {
    for (let i = 0; i < rows * cols; i++) {
      const w = words[i >>> 1];
      out[i] = f16BitsToNumber(i % 2 === 0 ? w & 0xffff : w >>> 16);
    }
    return out;
  }
  const per = CODES_PER_WORD[format];
  const bits = 32 / per;
  const codeWords = cols / per;
  if (format === 'q4m') {
    for (let n = 0; n < rows; n++) {
      for (let k = 0; k < cols; k++) {
        const code = (words[n * rowWords + (k >>> 3)] >>> (4 * (k % 8))) & 15;
        const dm = words[n * rowWords + codeWords + Math.floor(k / QUANT_GROUP)];
        // code·d is exact; one rounding of the sum, as the GPU's fma (or multiply then add) gives.
        out[n * cols + k] = Math.fround(code * f16BitsToNumber(dm & 0xffff) + f16BitsToNumber(dm >>> 16));
      }
    }
    return out;
  }
  const scales = new Float32Array(words.buffer, words.byteOffset, words.length);
  for (let n = 0; n < rows; n++) {
    for (let k = 0; k < cols; k++) {
      const raw = (words[n * rowWords + Math.floor(k / per)] >>> (bits * (k % per))) & ((1 << bits) - 1);
      const code = format === 'q4' ? raw - 8 : (raw << 24) >> 24;
      out[n * cols + k] = Math.fround(code * scales[n * rowWords + codeWords + Math.floor(k / QUANT_GROUP)]);
    }
  }
  return out;
}

/** `decodeWeight(encodeWeight(...))`: what a matrix becomes once stored in `format`. */
export function roundTripWeight(format: WeightFormat, values: ArrayLike<number>, rows: number, cols: number): Float64Array {
  return decodeWeight(format, encodeWeight(format, values, rows, cols), rows, cols);
}

/**
 * WGSL reader of a weight stored in `format`, over the storage array named `array` with row stride `row_words`
 * (a WGSL expression): `fn <name>(n, p) -> vec2<f32>` returns W[n, 2p] and W[n, 2p+1] of the chunk. K comes from
 * the expression `k` (codes end, scales start, at word k/4 or k/8 of the row). Keep this signature and meaning: every
 * kernel that reads weights (matmul, its fused and backward variants, the embedding) composes it.
 */
export function wgslWeightReader(format: WeightFormat, name: string, array: string, k: string): string {
  switch (format) {
    case 'f16':
      return `fn ${name}(n: u32, p: u32) -> vec2<f32> {\n  return unpack2x16float(${array}[n * (${k} / 2u) + p]);\n}\n`;
    case 'q8':
      return /* wgsl */ `
fn ${name}(n: u32, p: u32) -> vec2<f32> {
  let row = n * (${k} / 4u + ${k} / ${QUANT_GROUP}u);
  let word = i32(${array}[row + p / 2u]);
  let scale = bitcast<f32>(${array}[row + ${k} / 4u + (2u * p) / ${QUANT_GROUP}u]);
  let lo = 16u * (p % 2u);
  return vec2<f32>(f32(extractBits(word, lo, 8u)) * scale, f32(extractBits(word, lo + 8u, 8u)) * scale);
}
`;
    case 'q4':
      return /* wgsl */ `
fn ${name}(n: u32, p: u32) -> vec2<f32> {
  let row = n * (${k} / 8u + ${k} / ${QUANT_GROUP}u);
  let word = ${array}[row + p / 4u];
  let scale = bitcast<f32>(${array}[row + ${k} / 8u + (2u * p) / ${QUANT_GROUP}u]);
  let lo = 8u * (p % 4u);
  return vec2<f32>(f32(i32(extractBits(word, lo, 4u)) - 8) * scale, f32(i32(extractBits(word, lo + 4u, 4u)) - 8) * scale);
}
`;
    case 'q4m':
      return /* wgsl */ `
fn ${name}(n: u32, p: u32) -> vec2<f32> {
  let row = n * (${k} / 8u + ${k} / ${QUANT_GROUP}u);
  let word = ${array}[row + p / 4u];
  let dm = unpack2x16float(${array}[row + ${k} / 8u + (2u * p) / ${QUANT_GROUP}u]);
  let lo = 8u * (p % 4u);
  return vec2<f32>(fma(f32(extractBits(word, lo, 4u)), dm.x, dm.y), fma(f32(extractBits(word, lo + 4u, 4u)), dm.x, dm.y));
}
`;
    default:
      throw new GpuShapeError('wgslWeightReader', `unknown format ${format satisfies never}`);
  }
}
