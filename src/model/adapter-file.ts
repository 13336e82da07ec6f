/**
 * PEFT adapter files: a LoRA adapter as `adapter_model.safetensors` + `adapter_config.json`, written exactly as PEFT
 * writes them (so `PeftModel.from_pretrained` loads ours) and read from what PEFT writes for the same base model.
 *
 * Writing: tensors `base_model.model.model.layers.{i}.{self_attn|mlp}.{proj}.lora_{A|B}.weight`, A (R, in) and
 * B (out, R), in PEFT's order (layer, then projection, A before B), F32 by default (F16 / BF16 on request), metadata
 * `{"format": "pt"}`; the config JSON with sorted keys and two-space indents, as PEFT's `save_pretrained`.
 *
 * Reading accepts F32/F16/BF16 tensors, names with or without PEFT's `.default` adapter name, and `target_modules`
 * as a list (PEFT: a module matches when its name equals an entry or ends with "." + entry), a regex string (PEFT:
 * full match of the module name, e.g. `model.layers.0.self_attn.q_proj`) or "all-linear"; `layers_to_transform`
 * and `exclude_modules` are honoured. A projection the config leaves out in some layers only gets a zero pair
 * (A = B = 0): its contribution is exactly zero, stays zero under training (both gradients vanish), and the engine
 * keeps one target list for every layer. What the engine cannot compute (rank/alpha patterns, DoRA, biases, saved
 * modules, LoRA on lm_head or embeddings) is refused by name rather than loaded mis-scaled.
 *
 * Every failure is an `AdapterFileError` naming the file, and the tensor when one is at fault; the result is built
 * only once everything has been checked, so nothing is ever half-loaded.
 */
import type { ModelConfig } from './config.ts';
import { LORA_TARGETS, LoraConfigError, loraShapes, loraToTensors, parsePeftAdapterConfig, peftTensorName, toPeftAdapterConfig, validateLoraConfig, type LoraAdapter, type LoraConfig, type LoraPair, type LoraTarget } from './lora.ts';
import { compileLinearRegex, LinearRegexError, type LinearRegex } from './linear-regex.ts';
import { checkBytesFit } from './model-budget.ts';
import { hubIdOfModelLabel, MODEL_CARD_FILE, peftModelCard } from './model-card.ts';
import { NonFiniteTensorError, readSafetensors, SafetensorsError, writeSafetensors, type DecodedTensor, type SafetensorsDtype, type TensorToWrite } from './safetensors.ts';
import { projectionPrefix } from './weights.ts';

export const ADAPTER_WEIGHTS_FILE = 'adapter_model.safetensors';
export const ADAPTER_CONFIG_FILE = 'adapter_config.json';

/** The files of a PEFT adapter, as `save_pretrained` names them: the two it loads from, and its model card. */
export interface PeftAdapterFiles {
  'adapter_model.safetensors': Uint8Array;
  'adapter_config.json': string;
  /** The model card (model-card.ts): `library_name: peft`, and `base_model` when the base model's Hub id is known. */
  'README.md': string;
}

export interface WritePeftOptions {
  /** Storage dtype of A and B; default F32 (exact for the engine's f32 masters). */
  dtype?: SafetensorsDtype;
}

export class AdapterFileError extends Error {
  override name = 'AdapterFileError';
  constructor(
    readonly file: string,
    detail: string,
    readonly tensor: string | null = null,
    options?: { cause?: unknown },
  ) {
    super(`${file}${tensor === null ? '' : `, tensor "${tensor}"`}: ${detail}`, options);
  }
}

// --- writing --------------------------------------------------------------------------------------------------------

/**
 * PEFT's files for `adapter`, trained on the model labelled `base.modelId`: base_model_name_or_path is its Hub id when
 * the label tells it (a repo id, or a Hugging Face cache path; model-card.ts), else the label as given, as PEFT writes
 * the path it loaded the base from; README.md is the model card PEFT writes beside them.
 */
export function writePeftAdapter(adapter: LoraAdapter, base: { modelId: string; config: ModelConfig }, options: WritePeftOptions = {}): PeftAdapterFiles {
  try {
    validateLoraAdapter(base.config, adapter);
  } catch (e) {
    if (e instanceof LoraConfigError) throw new AdapterFileError(ADAPTER_WEIGHTS_FILE, `cannot be written: ${e.message}`, e.field, { cause: e });
    throw e;
  }
  const dtype = options.dtype ?? 'F32';
  const tensors = new Map<string, TensorToWrite>();
  for (const [name, tensor] of loraToTensors(adapter)) tensors.set(name, { shape: tensor.shape, data: tensor.data, dtype });
  const baseModel = hubIdOfModelLabel(base.modelId) ?? base.modelId;
  return {
    [ADAPTER_WEIGHTS_FILE]: writeSafetensors(tensors, { format: 'pt' }),
    [ADAPTER_CONFIG_FILE]: JSON.stringify(sortKeys(toPeftAdapterConfig(adapter.config, baseModel)), null, 2),
    [MODEL_CARD_FILE]: peftModelCard({ baseModel: base.modelId, lora: adapter.config }),
  };
}

function sortKeys(json: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(json).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * Throws LoraConfigError (field: the PEFT tensor name) unless every layer of `model` holds a pair for every target
 * of the config, with the shapes of `loraShapes`, data of that length, and finite values.
 */
export function validateLoraAdapter(model: ModelConfig, adapter: LoraAdapter): void {
  validateLoraConfig(adapter.config);
  if (adapter.layers.length !== model.numLayers) {
    throw new LoraConfigError('layers', `the adapter has ${adapter.layers.length} layers, the model ${model.numLayers}`);
  }
  adapter.layers.forEach((layer, i) => {
    for (const t of LORA_TARGETS) {
      const pair = layer[t];
      const targeted = adapter.config.targetModules.includes(t);
      if (pair === undefined && targeted) throw new LoraConfigError(peftTensorName(i, t, 'A'), 'missing: the config targets this projection');
      if (pair === undefined) continue;
      if (!targeted) throw new LoraConfigError(peftTensorName(i, t, 'A'), `present, but target_modules (${adapter.config.targetModules.join(', ')}) does not name ${t}`);
      const want = loraShapes(model, adapter.config, t);
      checkTensor(peftTensorName(i, t, 'A'), pair.a.shape, pair.a.data, want.a, adapter.config.rank);
      checkTensor(peftTensorName(i, t, 'B'), pair.b.shape, pair.b.data, want.b, adapter.config.rank);
    }
  });
}

function checkTensor(name: string, shape: readonly number[], data: ArrayLike<number>, want: readonly number[], rank: number): void {
  if (shape.join(',') !== want.join(',')) {
    throw new LoraConfigError(name, `shape [${shape.join(', ')}] does not match [${want.join(', ')}] (rank ${rank} on this base model): an adapter for another model or rank?`);
  }
  if (data.length !== want[0] * want[1]) throw new LoraConfigError(name, `holds ${data.length} values, shape [${want.join(', ')}] needs ${want[0] * want[1]}`);
  for (let j = 0; j < data.length; j++) {
    if (!Number.isFinite(data[j])) throw new LoraConfigError(name, `value ${j} is ${data[j]}: the adapter diverged or the file is damaged`);
  }
}

/**
 * An adapter from plain per-layer arrays (e.g. `QwenTrainer.readLora()`), shapes taken from the config; checked as
 * `validateLoraAdapter` does.
 */
export function loraAdapterFromArrays(
  model: ModelConfig,
  lora: LoraConfig,
  layers: ReadonlyArray<Partial<Record<LoraTarget, { a: Float32Array | Float64Array; b: Float32Array | Float64Array }>>>,
): LoraAdapter {
  const adapter: LoraAdapter = {
    config: lora,
    layers: layers.map((layer) => {
      const out: Partial<Record<LoraTarget, LoraPair>> = {};
      for (const t of LORA_TARGETS) {
        const pair = layer[t];
        if (pair === undefined) continue;
        const s = loraShapes(model, lora, t);
        out[t] = { a: { shape: s.a, data: pair.a }, b: { shape: s.b, data: pair.b } };
      }
      return out;
    }),
  };
  validateLoraAdapter(model, adapter);
  return adapter;
}

// --- reading --------------------------------------------------------------------------------------------------------

/** A PEFT tensor name, with or without the `.default` adapter name: the module and A/B. */
const PEFT_NAME = /^base_model\.model\.(.+)\.lora_(A|B)(?:\.default)?\.weight$/;

/** The adapter in PEFT's two files, for `model`. Throws AdapterFileError. */
export function readPeftAdapter(files: { safetensors: Uint8Array; configJson: string }, model: ModelConfig): LoraAdapter {
  if (!(files.safetensors instanceof Uint8Array)) throw new AdapterFileError(ADAPTER_WEIGHTS_FILE, 'is missing: a PEFT adapter needs adapter_model.safetensors and adapter_config.json');
  if (typeof files.configJson !== 'string') throw new AdapterFileError(ADAPTER_CONFIG_FILE, 'is missing: a PEFT adapter needs adapter_model.safetensors and adapter_config.json');
  const { lora, targeted } = readPeftConfig(files.configJson, model);
  checkAdapterFits(model, lora);
  const tensors = readAdapterTensors(files.safetensors);

  const layers: LoraAdapter['layers'] = [];
  for (let i = 0; i < model.numLayers; i++) {
    const layer: Partial<Record<LoraTarget, LoraPair>> = {};
    for (const t of lora.targetModules) {
      const s = loraShapes(model, lora, t);
      if (!targeted[i].has(t)) {
        for (const which of ['A', 'B'] as const) {
          const name = peftTensorName(i, t, which);
          if (tensors.delete(name)) throw new AdapterFileError(ADAPTER_WEIGHTS_FILE, `present, but adapter_config.json does not target ${projectionPrefix(i, t)}`, name);
        }
        layer[t] = { a: { shape: s.a, data: new Float32Array(s.a[0] * s.a[1]) }, b: { shape: s.b, data: new Float32Array(s.b[0] * s.b[1]) } };
        continue;
      }
      const take = (which: 'A' | 'B') => {
        const name = peftTensorName(i, t, which);
        const tensor = tensors.get(name);
        if (tensor === undefined) throw new AdapterFileError(ADAPTER_WEIGHTS_FILE, 'missing, though adapter_config.json targets this projection', name);
        tensors.delete(name);
        return { shape: tensor.shape, data: tensor.data };
      };
      layer[t] = { a: take('A'), b: take('B') };
    }
    layers.push(layer);
  }
  if (tensors.size > 0) {
    const names = [...tensors.keys()];
    throw new AdapterFileError(ADAPTER_WEIGHTS_FILE, `holds ${names.length} tensor(s) adapter_config.json does not account for (${names.slice(0, 3).join(', ')}${names.length > 3 ? ', …' : ''})`, names[0]);
  }
  const adapter: LoraAdapter = { config: lora, layers };
  try {
    validateLoraAdapter(model, adapter);
  } catch (e) {
    if (e instanceof LoraConfigError) throw new AdapterFileError(ADAPTER_WEIGHTS_FILE, e.message, e.field, { cause: e });
    throw e;
  }
  return adapter;
}

/** Bytes an adapter's f32 A and B may take in memory (Qwen3-0.6B at rank 64 on all seven projections: 0.2 GB). */
export const MAX_ADAPTER_BYTES = 1024 ** 3;

/**
 * Bytes an adapter_model.safetensors file may have, checked from a picked file's size before it is read: its tensors
 * (at most 4 bytes an element, F32 being the widest dtype read) within MAX_ADAPTER_BYTES, plus the length prefix and
 * a header of at most 100 MiB (safetensors.ts refuses a longer one).
 */
export const MAX_ADAPTER_FILE_BYTES = MAX_ADAPTER_BYTES + 8 + 100 * 1024 * 1024;

/** Refuses (before anything is allocated) an adapter whose f32 pairs for every layer would exceed MAX_ADAPTER_BYTES. */
function checkAdapterFits(model: ModelConfig, lora: LoraConfig): void {
  let elements = 0;
  for (const t of lora.targetModules) {
    const s = loraShapes(model, lora, t);
    elements += s.a[0] * s.a[1] + s.b[0] * s.b[1];
  }
  try {
    checkBytesFit(`${ADAPTER_CONFIG_FILE} (r = ${lora.rank} on ${lora.targetModules.join(', ')}, ${model.numLayers} layers)`, elements * model.numLayers * 4, MAX_ADAPTER_BYTES, 'Pick an adapter of a smaller rank.');
  } catch (e) {
    throw new AdapterFileError(ADAPTER_CONFIG_FILE, `field "r": ${(e as Error).message}`, null, { cause: e });
  }
}

/** The LoRA config of an adapter_config.json, checked against `model` (what the engine must be planned with). */
export function readPeftAdapterConfig(configJson: string, model: ModelConfig): LoraConfig {
  return readPeftConfig(configJson, model).lora;
}

/** `base_model_name_or_path` of an adapter_config.json (null when absent), to show or to check against the model. */
export function peftBaseModel(configJson: string): string | null {
  const base = parseConfigObject(configJson).base_model_name_or_path;
  return typeof base === 'string' && base !== '' ? base : null;
}

function parseConfigObject(configJson: string): Record<string, unknown> {
  let json: unknown;
  try {
    json = JSON.parse(configJson);
  } catch (e) {
    throw new AdapterFileError(ADAPTER_CONFIG_FILE, `is not valid JSON (${(e as Error).message})`, null, { cause: e });
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new AdapterFileError(ADAPTER_CONFIG_FILE, 'must hold a JSON object');
  return json as Record<string, unknown>;
}

/** The config, and per layer the projections it targets (after target_modules, layers_to_transform, exclude_modules). */
function readPeftConfig(configJson: string, model: ModelConfig): { lora: LoraConfig; targeted: Array<Set<LoraTarget>> } {
  const json = parseConfigObject(configJson);
  try {
    const targeted = resolveTargets(json, model);
    const union = LORA_TARGETS.filter((t) => targeted.some((set) => set.has(t)));
    const lora = parsePeftAdapterConfig({ ...json, target_modules: union, layers_to_transform: null, layers_pattern: null, exclude_modules: null });
    return { lora, targeted };
  } catch (e) {
    if (e instanceof LoraConfigError) throw new AdapterFileError(ADAPTER_CONFIG_FILE, e.message, null, { cause: e });
    throw e;
  }
}

/**
 * PEFT's module matching: a regex string must match the whole name (Python's re.fullmatch, run by linear-regex.ts in
 * linear time), a list entry the name or its last parts.
 */
function moduleMatcher(field: string, spec: unknown): ((key: string) => boolean) | null {
  if (spec === undefined || spec === null) return null;
  if (typeof spec === 'string') {
    // adapter_config.json is untrusted: a backtracking engine could spend minutes on one name (`(.?){40}.{40}`).
    let re: LinearRegex;
    try {
      re = compileLinearRegex(spec);
    } catch (e) {
      if (e instanceof LinearRegexError) throw new LoraConfigError(field, `${e.message}; list the module names instead`);
      throw e;
    }
    return (key) => re.fullMatch(key);
  }
  const names: unknown[] = Array.isArray(spec) ? spec : [0];
  if (!names.every((s): s is string => typeof s === 'string')) throw new LoraConfigError(field, `expected a list of module names or a regex string, got ${JSON.stringify(spec)}`);
  return (key) => names.some((n) => key === n || key.endsWith(`.${n}`));
}

function resolveTargets(json: Record<string, unknown>, model: ModelConfig): Array<Set<LoraTarget>> {
  // PEFT expands "all-linear" to every Linear layer but the output layer: here, the seven projections.
  const spec = json.target_modules === 'all-linear' ? [...LORA_TARGETS] : json.target_modules;
  const target = moduleMatcher('target_modules', spec);
  if (target === null) throw new LoraConfigError('target_modules', 'is missing');
  const exclude = moduleMatcher('exclude_modules', json.exclude_modules) ?? (() => false);
  const picks = (key: string) => target(key) && !exclude(key);
  for (const key of ['lm_head', 'model.embed_tokens']) {
    if (picks(key)) throw new LoraConfigError('target_modules', `reaches ${key}: LoRA on the LM head or the embeddings is not supported`);
  }
  const layers = layerFilter(json, typeof spec === 'string');
  const targeted = Array.from({ length: model.numLayers }, (_, i) => new Set(LORA_TARGETS.filter((t) => layers(i) && picks(projectionPrefix(i, t)))));
  if (targeted.every((set) => set.size === 0)) {
    throw new LoraConfigError('target_modules', `${JSON.stringify(json.target_modules)} matches no projection of this ${model.numLayers}-layer model (module names like ${projectionPrefix(0, 'q_proj')})`);
  }
  return targeted;
}

/** PEFT applies layers_to_transform (an index or a list) to list targets only; a regex already says which layers. */
function layerFilter(json: Record<string, unknown>, regexTargets: boolean): (layer: number) => boolean {
  const spec = json.layers_to_transform;
  if (spec === undefined || spec === null || regexTargets) return () => true;
  const list = typeof spec === 'number' ? [spec] : spec;
  if (!Array.isArray(list) || list.length > 4096 || !list.every((n) => Number.isInteger(n))) throw new LoraConfigError('layers_to_transform', `expected a layer index or a list of them, got ${JSON.stringify(spec)}`);
  if (list.length === 0) return () => true;
  const pattern = json.layers_pattern;
  const patterns = pattern === undefined || pattern === null ? [] : Array.isArray(pattern) ? pattern : [pattern];
  if (patterns.length > 0 && !patterns.includes('layers')) {
    throw new LoraConfigError('layers_pattern', `${JSON.stringify(pattern)} names no layer list of a Qwen model (its layers are model.layers)`);
  }
  return (layer) => list.includes(layer);
}

/** The file's tensors under their PEFT names without `.default`; refuses what is not a LoRA A or B. */
function readAdapterTensors(bytes: Uint8Array): Map<string, DecodedTensor> {
  let decoded: Map<string, DecodedTensor>;
  try {
    decoded = readSafetensors(bytes, ADAPTER_WEIGHTS_FILE, { requireFinite: true }).tensors;
  } catch (e) {
    if (e instanceof NonFiniteTensorError) throw new AdapterFileError(ADAPTER_WEIGHTS_FILE, `value ${e.index} is ${e.value}: the adapter diverged or the file is damaged`, e.tensor, { cause: e });
    if (e instanceof SafetensorsError) throw new AdapterFileError(ADAPTER_WEIGHTS_FILE, `is not a valid safetensors file: ${e.message}`, e.tensor, { cause: e });
    throw e;
  }
  const out = new Map<string, DecodedTensor>();
  for (const [name, tensor] of decoded) {
    const m = PEFT_NAME.exec(name);
    if (m === null) {
      const what = /lora_magnitude_vector/.test(name) ? ' (DoRA is not supported)' : /lora_embedding|modules_to_save|\.bias$/.test(name) ? ' (only LoRA A/B of linear projections are supported)' : '';
      throw new AdapterFileError(ADAPTER_WEIGHTS_FILE, `is not a LoRA A/B tensor of a projection${what}`, name);
    }
    const plain = `base_model.model.${m[1]}.lora_${m[2]}.weight`;
    if (out.has(plain)) throw new AdapterFileError(ADAPTER_WEIGHTS_FILE, 'appears twice (with and without ".default")', name);
    out.set(plain, tensor);
  }
  return out;
}
