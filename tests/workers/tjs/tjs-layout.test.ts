/**
 * The onnx-community layout: which variants a folder has (external data chunks counted in order), which files are
 * required (errors naming the file), and which variant is chosen — the one asked for, or 'auto''s preference for the
 * device (4-bit on WASM; q4f16 on WebGPU only with shader-f16).
 */
import { describe, expect, it } from 'vitest';
import { chooseVariant, decoderFile, detectLayout, TjsModelFileError, variantsIn, type TjsDtype } from '../../../src/workers/tjs/tjs-layout.ts';

const BASE = ['config.json', 'tokenizer.json', 'tokenizer_config.json'];
const folder = (...extra: string[]) => new Set([...BASE, ...extra]);

function errorOf(f: () => unknown): TjsModelFileError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(TjsModelFileError);
    return e as TjsModelFileError;
  }
  throw new Error('expected a TjsModelFileError');
}

describe('detectLayout', () => {
  it('lists the variants present, with their external data chunks in order and no gaps', () => {
    const v = detectLayout('m', folder('onnx/model.onnx', 'onnx/model.onnx_data', 'onnx/model.onnx_data_1', 'onnx/model_q4.onnx', 'onnx/model_q4f16.onnx', 'onnx/model_q4f16.onnx_data_2'));
    expect(v).toEqual([
      { dtype: 'q4', file: 'onnx/model_q4.onnx', externalData: [] },
      // _data_2 without _data is not a chunk transformers.js would ask for
      { dtype: 'q4f16', file: 'onnx/model_q4f16.onnx', externalData: [] },
      { dtype: 'fp32', file: 'onnx/model.onnx', externalData: ['onnx/model.onnx_data', 'onnx/model.onnx_data_1'] },
    ]);
  });

  it.each(BASE)('names %s when it is missing', (missing) => {
    const files = folder('onnx/model_q4.onnx');
    files.delete(missing);
    const e = errorOf(() => detectLayout('qwen3-onnx', files));
    expect(e.file).toBe(missing);
    expect(e.message).toContain(`${missing} in 'qwen3-onnx' is missing`);
  });

  it('names onnx/model_q4.onnx when there is no decoder at all (a safetensors folder)', () => {
    const e = errorOf(() => detectLayout('qwen3', folder('model.safetensors', 'onnx/decoder_model.onnx')));
    expect(e.file).toBe('onnx/model_q4.onnx');
    expect(e.message).toMatch(/Safetensors checkpoints load with the WebGPU engine/);
  });

  it('maps dtypes to the file names transformers.js asks for', () => {
    const names: Record<TjsDtype, string> = {
      fp32: 'onnx/model.onnx',
      fp16: 'onnx/model_fp16.onnx',
      q8: 'onnx/model_quantized.onnx',
      int8: 'onnx/model_int8.onnx',
      uint8: 'onnx/model_uint8.onnx',
      q4: 'onnx/model_q4.onnx',
      q4f16: 'onnx/model_q4f16.onnx',
      bnb4: 'onnx/model_bnb4.onnx',
    };
    for (const [dtype, file] of Object.entries(names)) {
      expect(decoderFile(dtype as TjsDtype)).toBe(file);
      expect(variantsIn(folder(file)).map((v) => v.dtype)).toEqual([dtype]);
    }
  });
});

describe('chooseVariant', () => {
  const all = detectLayout('m', folder('onnx/model.onnx', 'onnx/model_q4.onnx', 'onnx/model_q4f16.onnx', 'onnx/model_quantized.onnx'));
  it.each([
    ['wasm', false, 'q4'],
    ['webgpu', false, 'q4'],
    ['webgpu', true, 'q4f16'],
  ] as const)('auto on %s (shader-f16 %s) picks %s', (device, f16, dtype) => {
    expect(chooseVariant('m', all, 'auto', device, f16).dtype).toBe(dtype);
  });

  it('auto falls back to what is there (fp32 only)', () => {
    const only = detectLayout('m', folder('onnx/model.onnx'));
    expect(chooseVariant('m', only, 'auto', 'wasm', false).dtype).toBe('fp32');
    expect(chooseVariant('m', only, 'auto', 'webgpu', true).dtype).toBe('fp32');
  });

  it('honours an explicit choice, and names the missing file with what the folder has', () => {
    expect(chooseVariant('m', all, 'fp32', 'wasm', false).file).toBe('onnx/model.onnx');
    const e = errorOf(() => chooseVariant('qwen3-onnx', all, 'fp16', 'wasm', false));
    expect(e.file).toBe('onnx/model_fp16.onnx');
    expect(e.message).toContain('q4, q4f16, q8, fp32');
  });
});
