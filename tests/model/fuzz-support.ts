/**
 * Shared pieces of the model-file fuzz suites (tests/model/fuzz-*.test.ts): the per-run seed, the list of the
 * project's typed errors an untrusted file may produce, a tiny model to mutate, and the mutators — of config.json
 * values, of safetensors bytes (bit flips, the length field, truncation, header edits: offsets shuffled or
 * overlapping, huge or negative shapes, bad dtypes, non-JSON) — all driven by one seeded `Rng`.
 *
 * Seeds: each run draws a fresh seed and prints it; `SQLENV_TEST_SEED=<n> npx vitest run tests/model/fuzz-…` replays one.
 * Every failure message carries the seed and the case number.
 */
import { randomInt, type Rng } from '../../src/data/rng.ts';
import { MemoryBudgetError } from '../../src/gpu/memory-plan.ts';
import { AdapterFileError } from '../../src/model/adapter-file.ts';
import { ModelConfigError, toHfConfigJson, UnsupportedArchitectureError, type ModelConfig } from '../../src/model/config.ts';
import { FileTooLargeError } from '../../src/model/file-caps.ts';
import { CheckpointError } from '../../src/model/load.ts';
import { UnsafeModelPathError } from '../../src/model/model-path.ts';
import { SafetensorsError, writeSafetensors, type TensorToWrite } from '../../src/model/safetensors.ts';
import { randomModelWeights, tinyModelConfig } from '../../src/model/tiny-model.ts';
import { WeightShapeError } from '../../src/model/weights.ts';
import { testSeed } from '../fixtures/seed.ts';

/** The run's seed (SQLENV_TEST_SEED when set, else fresh; printed so a failure can be replayed: tests/fixtures/seed.ts). */
export function fuzzSeed(suite: string): number {
  return testSeed(`tests/model/${suite}.test.ts`);
}

/** The typed errors a loader may throw for a bad file. Anything else (TypeError, RangeError, SyntaxError…) is a bug. */
export const MODEL_FILE_ERRORS = [
  ModelConfigError,
  UnsupportedArchitectureError,
  SafetensorsError,
  CheckpointError,
  WeightShapeError,
  UnsafeModelPathError,
  MemoryBudgetError,
  AdapterFileError,
  FileTooLargeError,
] as const;

export function isModelFileError(e: unknown): boolean {
  return MODEL_FILE_ERRORS.some((cls) => e instanceof cls);
}

/** "ok", or the typed error's class name; throws a descriptive Error for anything untyped. */
export function classify(e: unknown, where: string): string {
  if (isModelFileError(e)) return (e as Error).name;
  const detail = e instanceof Error ? `${e.name}: ${e.message}\n${e.stack ?? ''}` : String(e);
  throw new Error(`${where}: an untyped error escaped the loader: ${detail}`);
}

// --- a tiny model to mutate -----------------------------------------------------------------------------------------

export const FUZZ_MODEL: ModelConfig = tinyModelConfig({ vocabSize: 64, hiddenSize: 16, numHeads: 2, numKvHeads: 1, headDim: 8, intermediateSize: 32, numLayers: 2 });

export function tinyConfigJson(config: ModelConfig = FUZZ_MODEL): Record<string, unknown> {
  return toHfConfigJson(config);
}

/** model.safetensors of `config` with seeded random weights (F32 unless said). */
export function tinyWeights(rng: Rng, config: ModelConfig = FUZZ_MODEL, dtype: TensorToWrite['dtype'] = 'F32'): Uint8Array {
  const tensors = new Map<string, TensorToWrite>();
  for (const [name, t] of randomModelWeights(config, rng)) tensors.set(name, { shape: t.shape, data: t.data, dtype });
  return writeSafetensors(tensors, { format: 'pt' });
}

// --- random values ----------------------------------------------------------------------------------------------------

export function pickOne<T>(rng: Rng, items: readonly T[]): T {
  return items[randomInt(rng, items.length)];
}

/** Values that break naive parsers: out-of-range and non-integer numbers, wrong types, huge strings. */
export const NASTY_VALUES: readonly unknown[] = [
  0, -1, 1, 2, 3, 7, 1e9, 1e308, -1e308, 2 ** 31, 2 ** 32, 2 ** 53, 2 ** 53 + 2, 1.5, 1e-320, -0, NaN, Infinity, -Infinity,
  '12', '', 'x'.repeat(10_000), null, true, false, [], [1, 2], {}, { a: 1 }, [[[[[[]]]]]],
];

export function randomNumber(rng: Rng): number {
  switch (randomInt(rng, 5)) {
    case 0:
      return randomInt(rng, 10);
    case 1:
      return randomInt(rng, 2 ** 16);
    case 2:
      return 2 ** randomInt(rng, 70);
    case 3:
      return (rng.next() - 0.5) * 10 ** randomInt(rng, 20);
    default:
      return pickOne(rng, NASTY_VALUES.filter((v): v is number => typeof v === 'number'));
  }
}

export function randomValue(rng: Rng): unknown {
  return randomInt(rng, 2) === 0 ? randomNumber(rng) : pickOne(rng, NASTY_VALUES);
}

/** A config.json object mutated in 1–3 fields (set to a nasty value, deleted, or nudged), or replaced outright. */
export function mutateConfig(rng: Rng, base: Record<string, unknown>): unknown {
  if (randomInt(rng, 20) === 0) return pickOne(rng, [null, 42, 'config', [], [base], { architectures: ['Qwen3ForCausalLM'] }]);
  const out: Record<string, unknown> = { ...base };
  const keys = Object.keys(base);
  for (let k = 1 + randomInt(rng, 3); k > 0; k--) {
    const key = pickOne(rng, keys);
    switch (randomInt(rng, 4)) {
      case 0:
        delete out[key];
        break;
      case 1:
        out[key] = randomValue(rng);
        break;
      case 2:
        out[key] = typeof out[key] === 'number' ? (out[key]) * pickOne(rng, [2, 3, 0.5, 1e6, -1]) : randomValue(rng);
        break;
      default:
        out[key] = randomNumber(rng);
    }
  }
  return out;
}

// --- safetensors bytes ---------------------------------------------------------------------------------------------------

function setLength(bytes: Uint8Array, n: bigint): Uint8Array {
  const out = bytes.slice();
  new DataView(out.buffer).setBigUint64(0, n & 0xffffffffffffffffn, true);
  return out;
}

function headerOf(bytes: Uint8Array): { json: Record<string, Record<string, unknown>>; data: Uint8Array } {
  const n = Number(new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, true));
  return { json: JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n))) as Record<string, Record<string, unknown>>, data: bytes.subarray(8 + n) };
}

export function withHeader(header: unknown, data: Uint8Array, headerText?: string): Uint8Array {
  const text = new TextEncoder().encode(headerText ?? JSON.stringify(header));
  const out = new Uint8Array(8 + text.length + data.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(text.length), true);
  out.set(text, 8);
  out.set(data, 8 + text.length);
  return out;
}

const HUGE_SHAPES: readonly unknown[] = [[2 ** 31, 2 ** 31], [1e20], [-1, 4], [1.5], ['3'], [2 ** 53 + 2], [0], [], new Array(40).fill(2), [1e308, 1e308], null, 'shape'];
const BAD_DTYPES: readonly unknown[] = ['F64', 'I64', 'U8', 'BOOL', 'f32', '', 'F8_E4M3', 123, null, 'toString', '__proto__'];
const BAD_OFFSETS: readonly unknown[] = [[0], [0, 1, 2], [-4, 0], [0, 2 ** 60], [1.5, 5.5], ['0', '4'], null, [8, 0], [2 ** 53, 2 ** 53 + 4]];

/** One header edit of a valid file: tensors' offsets shuffled or overlapping, shapes, dtypes, names, metadata. */
function editHeader(rng: Rng, bytes: Uint8Array): Uint8Array {
  let parsed: ReturnType<typeof headerOf>;
  try {
    parsed = headerOf(bytes);
  } catch {
    return bytes.slice(0, randomInt(rng, bytes.length)); // already not a header to edit: truncate instead
  }
  const { json, data } = parsed;
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return withHeader({ x: json }, data);
  const names = Object.keys(json).filter((n) => n !== '__metadata__' && typeof json[n] === 'object' && json[n] !== null);
  if (names.length === 0) return withHeader(json, data);
  const name = pickOne(rng, names);
  const other = pickOne(rng, names);
  const entry = { ...json[name] };
  switch (randomInt(rng, 9)) {
    case 0: {
      // Swap two tensors' offsets (same size: a silent swap; different: a mismatch).
      const mine = entry.data_offsets;
      entry.data_offsets = json[other].data_offsets;
      json[other] = { ...json[other], data_offsets: mine };
      break;
    }
    case 1: // overlap another tensor
      entry.data_offsets = json[other].data_offsets;
      entry.shape = json[other].shape;
      entry.dtype = json[other].dtype;
      break;
    case 2:
      entry.shape = pickOne(rng, HUGE_SHAPES);
      break;
    case 3:
      entry.dtype = pickOne(rng, BAD_DTYPES);
      break;
    case 4:
      entry.data_offsets = pickOne(rng, BAD_OFFSETS);
      break;
    case 5: {
      // Earlier rounds may have left this entry without a pair of offsets (the mutations compose): shift what is there.
      const offsets = Array.isArray(entry.data_offsets) ? (entry.data_offsets as unknown[]) : [];
      const [b, e] = [Number(offsets[0] ?? 0), Number(offsets[1] ?? 0)];
      const d = pickOne(rng, [-8, -4, -2, -1, 1, 2, 4, 8, 2 ** 40]);
      entry.data_offsets = randomInt(rng, 2) === 0 ? [b + d, e + d] : [b, e + d];
      break;
    }
    case 6:
      json[pickOne(rng, ['__metadata__', '__proto__', 'constructor', 'x'.repeat(300), name + '.copy'])] = randomInt(rng, 2) === 0 ? (randomValue(rng) as Record<string, unknown>) : { ...entry };
      break;
    case 7:
      delete json[name];
      break;
    default:
      json[name] = randomValue(rng) as Record<string, unknown>;
      return withHeader(json, data);
  }
  json[name] = entry;
  return withHeader(json, data);
}

/** A mutated safetensors file: one of bit flips, a new length field, truncation, a header edit, non-JSON, trailing bytes. */
export function mutateSafetensors(rng: Rng, bytes: Uint8Array): Uint8Array {
  const n = Number(new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, true));
  switch (randomInt(rng, 8)) {
    case 0: {
      const out = bytes.slice();
      const flips = 1 + randomInt(rng, 8);
      // Half the time aim at the header, where a flip changes structure rather than a weight.
      for (let i = 0; i < flips; i++) {
        const at = randomInt(rng, 2) === 0 ? randomInt(rng, Math.min(out.length, 8 + n)) : randomInt(rng, out.length);
        out[at] ^= 1 << randomInt(rng, 8);
      }
      return out;
    }
    case 1:
      return setLength(bytes, BigInt(pickOne(rng, [0, 1, 2, n - 1, n + 1, n + 7, bytes.length, 2 ** 32, 2 ** 53, 100 * 1024 * 1024 + 1])) + (randomInt(rng, 4) === 0 ? 0xffffffff00000000n : 0n));
    case 2:
      return bytes.slice(0, randomInt(rng, bytes.length));
    case 3:
    case 4:
      return editHeader(rng, bytes);
    case 5: {
      const garbage = pickOne(rng, ['', '[]', 'null', '{"a":', '\u00ff\u00fe', '{"x":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}', '{'.repeat(5000), '"' + 'a'.repeat(1000)]);
      return withHeader(null, bytes.subarray(8 + n), garbage);
    }
    case 6: {
      const out = new Uint8Array(bytes.length + 1 + randomInt(rng, 64));
      out.set(bytes);
      return out;
    }
    default: {
      const out = new Uint8Array(randomInt(rng, 64));
      for (let i = 0; i < out.length; i++) out[i] = randomInt(rng, 256);
      return out;
    }
  }
}

/** `bytes` with element `index` of tensor `name` (F32) set to `value` (NaN or ±Infinity). */
export function poisonF32(bytes: Uint8Array, name: string, index: number, value: number): Uint8Array {
  const n = Number(new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, true));
  const { json } = headerOf(bytes);
  const [begin] = json[name].data_offsets as [number, number];
  const out = bytes.slice();
  new DataView(out.buffer).setFloat32(8 + n + begin + 4 * index, value, true);
  return out;
}
