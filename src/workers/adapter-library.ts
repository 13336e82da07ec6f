/**
 * The adapters the worker holds: trained by a run of this page, loaded from PEFT files, or downloaded from the Hub.
 * Each is kept in the `TrainStore` (IndexedDB in the page) with the config of the model it fits, and each plays as the
 * policy `qwen+<id>` next to the base `qwen` (services/adapter-service.ts registers them; this module only names and
 * keeps them).
 *
 * Ids are short slugs of the adapter's name, made unique (`grpo-run`, `grpo-run-2`, …), so policy names stay readable
 * in saved evaluation runs and Compare.
 */
import { readPeftAdapter, writePeftAdapter, type PeftAdapterFiles } from '../model/adapter-file.ts';
import type { ModelConfig } from '../model/config.ts';
import type { LoraAdapter } from '../model/lora.ts';
import type { AdapterInfo } from './train-protocol.ts';
import type { StoredAdapter, TrainStore } from './train-store.ts';

/** A unique id for an adapter named `name`, given the ids in use. */
export function adapterId(name: string, taken: readonly string[]): string {
  const base = name.toLowerCase().replace(/[^a-z0-9_-]+/g, '-').replace(/^[-_]+|[-_]+$/g, '').slice(0, 40) || 'adapter';
  if (!taken.includes(base)) return base;
  for (let i = 2; ; i++) if (!taken.includes(`${base}-${i}`)) return `${base}-${i}`;
}

/** Adapter policies are the base policy `qwen` plus the adapter: `qwen+<id>`. */
export const ADAPTER_POLICY_PREFIX = 'qwen+';

export function adapterPolicy(id: string): string {
  return `${ADAPTER_POLICY_PREFIX}${id}`;
}

export class AdapterNotFoundError extends RangeError {
  override name = 'AdapterNotFoundError';
  constructor(id: string) {
    super(`No adapter '${id}': it was deleted, or this browser's storage was cleared.`);
  }
}

export class AdapterLibrary {
  constructor(
    private readonly store: TrainStore,
    /** Called after an adapter is added, replaced or deleted (the adapter service re-registers the policies). */
    private readonly onChange: () => Promise<void> | void,
  ) {}

  list(): Promise<AdapterInfo[]> {
    return this.store.listAdapters();
  }

  async info(id: string): Promise<AdapterInfo> {
    const info = (await this.list()).find((a) => a.id === id);
    if (!info) throw new AdapterNotFoundError(id);
    return info;
  }

  async load(id: string): Promise<StoredAdapter> {
    const stored = await this.store.loadAdapter(id);
    if (!stored) throw new AdapterNotFoundError(id);
    return stored;
  }

  /** A fresh id for `name`. */
  async newId(name: string): Promise<string> {
    return adapterId(name, (await this.list()).map((a) => a.id));
  }

  /** Saves `adapter` under `id` (replacing one of that id) and announces the change. */
  async save(id: string, fields: Pick<AdapterInfo, 'name' | 'origin' | 'baseModel' | 'steps'>, adapter: LoraAdapter, modelConfig: ModelConfig): Promise<AdapterInfo> {
    const info: AdapterInfo = {
      id,
      name: fields.name,
      origin: fields.origin,
      baseModel: fields.baseModel,
      rank: adapter.config.rank,
      alpha: adapter.config.alpha,
      targets: [...adapter.config.targetModules],
      policy: adapterPolicy(id),
      ...(fields.steps !== undefined && { steps: fields.steps }),
    };
    await this.store.saveAdapter(info, { adapter, modelConfig });
    await this.onChange();
    return info;
  }

  /** An adapter read from files or the Hub (already checked against `base.config`), kept under a new id. */
  async add(adapter: LoraAdapter, name: string, origin: 'file' | 'hub', base: { label: string; config: ModelConfig }): Promise<AdapterInfo> {
    return this.save(await this.newId(name), { name, origin, baseModel: base.label }, adapter, base.config);
  }

  /** PEFT's files checked against `base.config` (AdapterFileError when they do not fit), kept as a new adapter. */
  addPeftFiles(files: { safetensors: Uint8Array; configJson: string }, name: string, base: { label: string; config: ModelConfig }): Promise<AdapterInfo> {
    return this.add(readPeftAdapter(files, base.config), name, 'file', base);
  }

  /** The two PEFT files of an adapter, for download. */
  async files(id: string): Promise<PeftAdapterFiles> {
    const [info, stored] = await Promise.all([this.info(id), this.load(id)]);
    return writePeftAdapter(stored.adapter, { modelId: info.baseModel, config: stored.modelConfig });
  }

  async delete(id: string): Promise<void> {
    await this.store.deleteAdapter(id);
    await this.onChange();
  }
}
