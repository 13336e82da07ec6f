/**
 * The onnx-community layout of an ONNX Qwen export, as transformers.js reads it, and the choice of one of its
 * variants. A folder holds `config.json`, `tokenizer.json`, `tokenizer_config.json` (and optionally
 * `generation_config.json`), and under `onnx/` one decoder file per dtype: `model.onnx` (fp32), `model_fp16.onnx`,
 * `model_quantized.onnx` (q8), `model_q4.onnx`, `model_q4f16.onnx`, … (transformers.js's dtype → suffix table). A
 * variant's weights may sit beside it as external data: `model_q4.onnx_data`, `model_q4.onnx_data_1`, …, which
 * transformers.js must be told the count of.
 *
 * Pure functions over file names, so the loader (tjs-files.ts), the Model panel and Node tests share them. Errors are
 * TjsModelFileError, naming the folder and the file at fault.
 */

/** The dtypes transformers.js can load, in the order the page lists them. */
export const TJS_DTYPES = ['q4', 'q4f16', 'q8', 'int8', 'uint8', 'fp16', 'fp32', 'bnb4'] as const;
export type TjsDtype = (typeof TJS_DTYPES)[number];

/** transformers.js's file-name suffix of each dtype (DEFAULT_DTYPE_SUFFIX_MAPPING in its source). */
const SUFFIX: Record<TjsDtype, string> = { fp32: '', fp16: '_fp16', q8: '_quantized', int8: '_int8', uint8: '_uint8', q4: '_q4', q4f16: '_q4f16', bnb4: '_bnb4' };

/** The files every variant needs besides its decoder. */
export const TJS_REQUIRED_FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json'] as const;
/** The one optional file of a variant: read and checked as JSON when present. */
export const TJS_GENERATION_CONFIG = 'generation_config.json';

/** Where the decoder of `dtype` lives inside the folder. */
export function decoderFile(dtype: TjsDtype): string {
  return `onnx/model${SUFFIX[dtype]}.onnx`;
}

export class TjsModelFileError extends Error {
  override name = 'TjsModelFileError';
  constructor(
    readonly folder: string,
    readonly file: string,
    reason: string,
  ) {
    super(`${file} in '${folder}' ${reason}`);
  }
}

/** One loadable variant: its dtype, decoder file and external-data files (in chunk order). */
export interface TjsVariant {
  dtype: TjsDtype;
  file: string;
  externalData: string[];
}

/** The external-data chunk names of a decoder, as transformers.js asks for them: `X_data`, `X_data_1`, … */
export function externalDataNames(file: string, chunks: number): string[] {
  return Array.from({ length: chunks }, (_, i) => `${file}_data${i === 0 ? '' : `_${i}`}`);
}

/** The variants present among `files` (paths relative to the model folder), in TJS_DTYPES order. */
export function variantsIn(files: ReadonlySet<string>): TjsVariant[] {
  const out: TjsVariant[] = [];
  for (const dtype of TJS_DTYPES) {
    const file = decoderFile(dtype);
    if (!files.has(file)) continue;
    let chunks = 0;
    while (files.has(externalDataNames(file, chunks + 1)[chunks])) chunks++;
    out.push({ dtype, file, externalData: externalDataNames(file, chunks) });
  }
  return out;
}

/**
 * Checks a folder's listing is an onnx-community export and returns its variants. Throws TjsModelFileError naming the
 * first required file missing, or `onnx/model_q4.onnx` (the usual one) when no decoder is there at all.
 */
export function detectLayout(folder: string, files: ReadonlySet<string>): TjsVariant[] {
  for (const f of TJS_REQUIRED_FILES) {
    if (!files.has(f)) throw new TjsModelFileError(folder, f, `is missing: pick the folder of an ONNX export in the onnx-community layout (${TJS_REQUIRED_FILES.join(', ')}, onnx/model_*.onnx).`);
  }
  const variants = variantsIn(files);
  if (variants.length === 0) {
    throw new TjsModelFileError(folder, decoderFile('q4'), `is missing, and so is every other decoder (${TJS_DTYPES.map(decoderFile).join(', ')}): is this an ONNX export? Safetensors checkpoints load with the WebGPU engine instead.`);
  }
  return variants;
}

/** 'auto' or one dtype. */
export type TjsDtypeChoice = TjsDtype | 'auto';

/**
 * The order 'auto' tries dtypes in: on WebGPU the f16 variants first where the adapter has shader-f16, then 4-bit;
 * on WASM the 4-bit and 8-bit ones (small, fast on the CPU), fp32 last before the f16 ones (emulated, slow).
 */
export function dtypePreference(device: TjsDevice, shaderF16: boolean): TjsDtype[] {
  if (device === 'webgpu') return shaderF16 ? ['q4f16', 'fp16', 'q4', 'fp32', 'q8', 'int8', 'uint8', 'bnb4'] : ['q4', 'fp32', 'q8', 'int8', 'uint8', 'bnb4', 'q4f16', 'fp16'];
  return ['q4', 'q8', 'int8', 'uint8', 'bnb4', 'fp32', 'q4f16', 'fp16'];
}

/** Where transformers.js runs the model. */
export type TjsDevice = 'webgpu' | 'wasm';

/** The variant to load: the one asked for (an error naming its file when absent), or the first 'auto' prefers. */
export function chooseVariant(folder: string, variants: readonly TjsVariant[], choice: TjsDtypeChoice, device: TjsDevice, shaderF16: boolean): TjsVariant {
  if (choice !== 'auto') {
    const v = variants.find((x) => x.dtype === choice);
    if (!v) throw new TjsModelFileError(folder, decoderFile(choice), `is missing, so dtype ${choice} cannot load; this folder has ${variants.map((x) => x.dtype).join(', ')}.`);
    return v;
  }
  for (const dtype of dtypePreference(device, shaderF16)) {
    const v = variants.find((x) => x.dtype === dtype);
    if (v) return v;
  }
  // detectLayout never returns an empty list; a caller that built its own gets the same error it would.
  throw new TjsModelFileError(folder, decoderFile('q4'), 'is missing, and so is every other decoder.');
}
