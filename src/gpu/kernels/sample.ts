/**
 * sample op (see sample.wgsl): one token per row of logits (M, V), drawn on the GPU with temperature, top-k (off by
 * default) and top-p, seeded by a counter-based key per row, or greedy at temperature 0; each row's result is the
 * token, its log-probability under the distribution actually sampled from (after temperature, top-k and top-p
 * renormalisation; 0 for greedy), the uniform drawn, and the number of tokens kept. One dispatch, one workgroup per
 * row; the result is (M, 4) u32, so a decode step reads back 16 bytes per sequence instead of its V logits.
 */
import { requireBytes } from '../buffers.ts';
import type { GpuContext } from '../device.ts';
import { GpuShapeError } from '../errors.ts';
import { composeWgsl, getKernel, type BindingSpec, type Kernel } from '../kernel.ts';
import type { BufferArg, Recorder } from '../recorder.ts';
import { defineUniforms } from '../uniforms.ts';
import { WGSL_GRID, WGSL_MATH, grid1d } from '../wgsl/common.ts';
import type { SampleKey } from './sample-rng.ts';
import source from './sample.wgsl?raw';

export const SAMPLE_PARAMS = defineUniforms('SampleParams', { M: 'u32', V: 'u32', temperature: 'f32', top_p: 'f32', top_k: 'u32', greedy: 'u32' });

/** The kernel's source for a workgroup of `wg` invocations per row. */
function code(wg: number): string {
  return composeWgsl(WGSL_GRID, WGSL_MATH, SAMPLE_PARAMS.wgsl, `const WG: u32 = ${wg}u;`, source);
}

/** Rows of at most this many logits use the 32-wide kernel. */
export const SMALL_VOCAB = 2048;

const BINDINGS: BindingSpec[] = [
  { binding: 0, kind: 'uniform', name: 'params' },
  { binding: 1, kind: 'read-only-storage', name: 'logits' },
  { binding: 2, kind: 'read-only-storage', name: 'keys' },
  { binding: 3, kind: 'storage', name: 'out' },
];

/** How tokens are drawn. Defaults: topP 1 (off), topK 0 (off). temperature 0 is greedy. */
export interface SamplingParams {
  /** Divides the logits; 0 = greedy (argmax, log-prob 0). */
  temperature: number;
  /** Nucleus: keep the most likely tokens until their mass reaches topP of the (top-k) mass; in (0, 1]. */
  topP?: number;
  /** Keep the k most likely tokens (all tied at the k-th kept); 0 = off. */
  topK?: number;
}

export const GREEDY: SamplingParams = { temperature: 0 };

/** Checks sampling parameters, naming the bad one. */
export function checkSamplingParams(p: SamplingParams): Required<SamplingParams> {
  const topP = p.topP ?? 1;
  const topK = p.topK ?? 0;
  if (!Number.isFinite(p.temperature) || p.temperature < 0) throw new GpuShapeError('sampling', `temperature ${p.temperature} must be a finite number >= 0 (0 = greedy)`);
  if (!(topP > 0 && topP <= 1)) throw new GpuShapeError('sampling', `topP ${topP} must be in (0, 1] (1 = off)`);
  if (!Number.isInteger(topK) || topK < 0 || topK > 0xffffffff) throw new GpuShapeError('sampling', `topK ${topK} must be an integer >= 0 (0 = off)`);
  return { temperature: p.temperature, topP, topK };
}

/** Keys as the kernel reads them: (M, 4) u32. */
export function packSampleKeys(keys: readonly SampleKey[]): Uint32Array {
  const out = new Uint32Array(keys.length * 4);
  keys.forEach((k, i) => {
    for (const [name, value] of Object.entries(k)) {
      if (!Number.isInteger(value) || value < 0 || value > 0xffffffff) throw new GpuShapeError('sampling', `key ${i}: ${name} = ${value} is not a u32`);
    }
    out.set([k.seed, k.sequence, k.step, 0], i * 4);
  });
  return out;
}

export interface Sampled {
  /** (M) token ids */
  tokens: Uint32Array;
  /** (M) log q(token) under the distribution used (0 for greedy) */
  logprobs: Float32Array;
  /** (M) the uniform each row drew (0 for greedy) */
  uniforms: Float32Array;
  /** (M) tokens kept after top-k and top-p */
  kept: Uint32Array;
}

/** Splits the kernel's (M, 4) u32 result. */
export function unpackSampled(words: Uint32Array, M: number): Sampled {
  const f = new Float32Array(words.buffer, words.byteOffset, M * 4);
  return {
    tokens: Uint32Array.from({ length: M }, (_, m) => words[m * 4]),
    logprobs: Float32Array.from({ length: M }, (_, m) => f[m * 4 + 1]),
    uniforms: Float32Array.from({ length: M }, (_, m) => f[m * 4 + 2]),
    kept: Uint32Array.from({ length: M }, (_, m) => words[m * 4 + 3]),
  };
}

export interface SampleArgs {
  /** (M, 4) u32 */
  out: BufferArg;
  /** (M, V) f32 */
  logits: BufferArg;
  /** (M, 4) u32 from packSampleKeys */
  keys: BufferArg;
  M: number;
  V: number;
  params: SamplingParams;
}

export class SampleOp {
  private constructor(
    private readonly wide: Kernel,
    private readonly narrow: Kernel,
  ) {}

  static async create(ctx: GpuContext): Promise<SampleOp> {
    const [wide, narrow] = await Promise.all([
      getKernel(ctx, { name: 'sample', code: code(256), entryPoint: 'sample', bindings: BINDINGS }),
      getKernel(ctx, { name: 'sample.wg32', code: code(32), entryPoint: 'sample', bindings: BINDINGS }),
    ]);
    return new SampleOp(wide, narrow);
  }

  encode(rec: Recorder, args: SampleArgs): void {
    const { M, V } = args;
    const p = checkSamplingParams(args.params);
    if (!Number.isInteger(M) || M <= 0 || !Number.isInteger(V) || V <= 0) throw new GpuShapeError('sample', `M = ${M}, V = ${V} must be positive integers`);
    requireBytes('sample', 'logits', args.logits, M * V * 4);
    requireBytes('sample', 'keys', args.keys, M * 16);
    requireBytes('sample', 'out', args.out, M * 16);
    const greedy = p.temperature === 0;
    const uniforms = SAMPLE_PARAMS.pack({ M, V, temperature: greedy ? 1 : p.temperature, top_p: p.topP, top_k: p.topK, greedy: greedy ? 1 : 0 });
    rec.dispatch(V <= SMALL_VOCAB ? this.narrow : this.wide, uniforms, { logits: args.logits, keys: args.keys, out: args.out }, grid1d(M));
  }
}
