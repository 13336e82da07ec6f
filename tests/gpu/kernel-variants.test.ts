/**
 * Default kernel variants by adapter and shape. matmul (src/gpu/kernels/matmul.ts `defaultMatmulVariants`): a real
 * GPU gets the tiled v1 for many rows and v3 for decode when it has subgroups; a CPU adapter (SwiftShader, or one
 * the browser flags as the fallback) never gets v1 or v3, which measured 2–5× slower there than v2. attention
 * (attention.ts `defaultAttentionVariant`): the barrier-free 'row' variant only on a CPU adapter, for heads it holds
 * (D ≤ 64) and enough (token, head) pairs to spread over the CPU's threads. attention backward
 * (attention-backward.ts `defaultAttentionBackwardVariant`): the row passes only on a CPU adapter, for D ≤ 32.
 */
import { describe, expect, it } from 'vitest';
import { ATTENTION_ROW_MAX_D, ATTENTION_ROW_MIN_JOBS, defaultAttentionVariant } from '../../src/gpu/kernels/attention.ts';
import { ATTENTION_BACKWARD_ROW_MAX_D, defaultAttentionBackwardVariant } from '../../src/gpu/kernels/attention-backward.ts';
import { defaultMatmulVariants } from '../../src/gpu/kernels/matmul.ts';

function info(vendor: string, architecture: string, description = '', isFallbackAdapter?: boolean): GPUAdapterInfo {
  return { vendor, architecture, device: '', description, ...(isFallbackAdapter === undefined ? {} : { isFallbackAdapter }) } as GPUAdapterInfo;
}

describe('defaultMatmulVariants', () => {
  it('uses the tiled kernel for many rows on a GPU, and v3 for decode only with subgroups', () => {
    expect(defaultMatmulVariants(info('nvidia', 'hopper'), true)).toEqual({ decode: 'v3', rows: 'v1' });
    expect(defaultMatmulVariants(info('apple', 'metal-3'), false)).toEqual({ decode: 'v2', rows: 'v1' });
  });

  it('uses v2 at every row count on SwiftShader, however the adapter names it', () => {
    expect(defaultMatmulVariants(info('google', 'swiftshader'), true)).toEqual({ decode: 'v2', rows: 'v2' });
    expect(defaultMatmulVariants(info('', '', 'SwiftShader Device (Subzero)'), false)).toEqual({ decode: 'v2', rows: 'v2' });
  });

  it('treats an adapter flagged as the fallback as a CPU adapter', () => {
    expect(defaultMatmulVariants(info('mesa', 'llvmpipe', '', true), true)).toEqual({ decode: 'v2', rows: 'v2' });
    expect(defaultMatmulVariants(info('mesa', 'radv', '', false), true)).toEqual({ decode: 'v3', rows: 'v1' });
  });
});

describe('defaultAttentionVariant', () => {
  it('uses the row variant on a CPU adapter for a training-sized batch of small heads', () => {
    expect(defaultAttentionVariant(true, 320, 4, 16)).toBe('row');
    expect(defaultAttentionVariant(true, ATTENTION_ROW_MIN_JOBS, 1, ATTENTION_ROW_MAX_D)).toBe('row');
  });

  it('keeps the workgroup variant on a GPU, for wide heads, and for a small decode batch', () => {
    expect(defaultAttentionVariant(false, 320, 4, 16)).toBe('workgroup');
    expect(defaultAttentionVariant(true, 320, 4, ATTENTION_ROW_MAX_D + 2)).toBe('workgroup');
    expect(defaultAttentionVariant(true, 4, 4, 16)).toBe('workgroup');
    expect(defaultAttentionVariant(true, ATTENTION_ROW_MIN_JOBS - 1, 1, 16)).toBe('workgroup');
  });
});

describe('defaultAttentionBackwardVariant', () => {
  it('uses the row passes on a CPU adapter for heads they hold', () => {
    expect(defaultAttentionBackwardVariant(true, 8)).toBe('row');
    expect(defaultAttentionBackwardVariant(true, ATTENTION_BACKWARD_ROW_MAX_D)).toBe('row');
  });

  it('keeps the tiled passes on a GPU, and for heads wider than the row passes hold', () => {
    expect(defaultAttentionBackwardVariant(false, 8)).toBe('tiled');
    expect(defaultAttentionBackwardVariant(true, ATTENTION_BACKWARD_ROW_MAX_D + 2)).toBe('tiled');
    expect(defaultAttentionBackwardVariant(true, 128)).toBe('tiled');
  });
});
