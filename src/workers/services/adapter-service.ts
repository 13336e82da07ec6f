/**
 * LoRA adapters for the held model: the library of kept adapters (adapter-library.ts: trained by a run, loaded from
 * PEFT files, downloaded from the Hub), and their policies. Every kept adapter of the loaded model plays as the
 * policy `qwen+<id>` beside the base `qwen`, with the same settings, so "base vs trained" is two policies: they are
 * registered in the host's `PolicyRegistry` whenever the model or the library changes, and dropped with the model.
 */
import { downloadPeftAdapter } from '../../model/adapter-hub.ts';
import type { PeftAdapterFiles } from '../../model/adapter-file.ts';
import { MemoryFileStore, type CacheStorageFileStore } from '../../model/cache.ts';
import type { ModelConfig } from '../../model/config.ts';
import type { DownloadProgress } from '../../model/hub.ts';
import type { PolicyRegistry } from '../../policies/registry.ts';
import { AdapterLibrary } from '../adapter-library.ts';
import type { AdapterInfo, HubAdapterOptions } from '../train-protocol.ts';
import type { TrainStore } from '../train-store.ts';
import type { ModelService } from './model-service.ts';

export interface AdapterServiceDeps {
  /** Where adapters are kept (with checkpoints and run histories). */
  store: TrainStore;
  policies: PolicyRegistry;
  /** The held model: adapters are checked against it and play on it. */
  models: ModelService;
  /** Where Hub downloads are cached; null: in memory for the one download. */
  cache: CacheStorageFileStore | null;
}

export class AdapterService {
  /** The kept adapters; training saves into it too (train-service.ts). */
  readonly library: AdapterLibrary;
  private readonly registered = new Set<string>();
  private syncs = 0;

  constructor(private readonly deps: AdapterServiceDeps) {
    this.library = new AdapterLibrary(deps.store, () => this.syncPolicies());
    deps.models.listen({ changed: () => this.syncPolicies(), dropped: () => this.dropPolicies() });
  }

  listAdapters(): Promise<AdapterInfo[]> {
    return this.library.list();
  }

  /** The two PEFT files of an adapter (adapter_model.safetensors, adapter_config.json), for download. */
  adapterFiles(id: string): Promise<PeftAdapterFiles> {
    return this.library.files(id);
  }

  /** A PEFT adapter from files, checked against the loaded model (AdapterFileError), kept and played as a policy. */
  async loadAdapterFiles(files: { safetensors: Uint8Array; configJson: string }, name: string): Promise<AdapterInfo> {
    return this.library.addPeftFiles(files, name, this.loadedBase());
  }

  /** A PEFT adapter from a Hub repo (cached like models), checked against the loaded model, kept and played. */
  async loadAdapterFromHub(repo: string, options: HubAdapterOptions = {}, onProgress?: (p: DownloadProgress) => void): Promise<AdapterInfo> {
    const base = this.loadedBase();
    const store = this.deps.cache ?? new MemoryFileStore();
    const loaded = await downloadPeftAdapter(repo, { model: base.config, revision: options.revision, base: options.base, subfolder: options.subfolder, store, onProgress });
    return this.library.add(loaded.adapter, options.name?.trim() || loaded.label, 'hub', base);
  }

  deleteAdapter(id: string): Promise<void> {
    return this.library.delete(id);
  }

  private loadedBase(): { label: string; config: ModelConfig } {
    const llm = this.deps.models.loaded();
    if (!llm) throw new RangeError('No model is loaded: load the base model the adapter was trained on first.');
    return { label: llm.label, config: llm.config };
  }

  /** Registers every kept adapter of the loaded model as a policy `qwen+<id>` (and drops the others). */
  private async syncPolicies(): Promise<void> {
    const sync = ++this.syncs;
    const infos = await this.library.list();
    if (sync !== this.syncs) return; // a later sync saw a newer list
    this.dropPolicies();
    const loaded = this.deps.models.loaded();
    const make = this.deps.models.policyMaker();
    if (!loaded?.generateWith || !make) return;
    for (const info of infos.filter((a) => a.baseModel === loaded.label)) {
      // A fresh key per sync: an adapter saved again under its id (a resumed run) is read again.
      const generate = loaded.generateWith({ key: `${info.id}#${sync}`, load: async () => (await this.library.load(info.id)).adapter });
      const trained = info.steps !== undefined ? `, ${info.steps} steps` : '';
      this.deps.policies.register({ name: info.policy, label: `Qwen + ${info.name}`, description: `${loaded.label} with the LoRA adapter '${info.name}' (${info.origin}, rank ${info.rank}${trained}), same settings as Qwen.` }, () => make(generate, info.policy));
      this.registered.add(info.policy);
    }
  }

  /** Unregisters every adapter policy (the model was dropped). */
  private dropPolicies(): void {
    for (const name of this.registered) this.deps.policies.unregister(name);
    this.registered.clear();
  }
}
