/**
 * A `TrainStore` (src/workers/train-store.ts) in a folder, for `sqlenv train --out DIR`: what the page keeps in
 * IndexedDB, kept as files, so TrainService runs unchanged in Node and a run resumes from its folder.
 *
 *   DIR/adapter_model.safetensors, DIR/adapter_config.json   the run's adapter as PEFT writes it (f32)
 *   DIR/README.md                                              its model card, as PEFT writes one (src/model/model-card.ts)
 *   DIR/adapter-info.json                                      its AdapterInfo and the model config it fits
 *   DIR/checkpoints/<id>.json                                  a checkpoint's CheckpointInfo (listed)
 *   DIR/checkpoints/<id>.v8                                    the whole StoredCheckpoint (adapter, AdamW moments,
 *                                                              request, history)
 *   DIR/history-<runId>.v8                                     a finished run's history
 *
 * How to think about it: the `.v8` files are Node's structured-clone serialisation (`v8.serialize`), the same
 * clone IndexedDB applies, so typed arrays, NaN and nested records come back bit for bit. One folder holds one
 * run's adapter: saving an adapter under another id replaces it (the CLI starts one run per folder). An adapter to
 * start from (`--init-adapter`) is served read-only under INIT_ADAPTER_ID from its own PEFT folder. Every file is
 * written to a temporary name and renamed, so a run killed mid-save leaves the previous file whole; a checkpoint's
 * state is written before its info, so a listed checkpoint is always loadable.
 */
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { ADAPTER_CONFIG_FILE, ADAPTER_WEIGHTS_FILE, readPeftAdapter, writePeftAdapter } from '../model/adapter-file.ts';
import { MODEL_CARD_FILE } from '../model/model-card.ts';
import type { ModelConfig } from '../model/config.ts';
import type { LoraAdapter } from '../model/lora.ts';
import type { AdapterInfo, CheckpointInfo, TrainRunHistory } from '../workers/train-protocol.ts';
import type { StoredAdapter, StoredCheckpoint, TrainStore } from '../workers/train-store.ts';

const ADAPTER_INFO_FILE = 'adapter-info.json';

/** The id of the adapter a run starts from (not a slug `adapterId` can produce, so no run's adapter takes it). */
export const INIT_ADAPTER_ID = '@init';

export interface FileTrainStoreOptions {
  /** A PEFT folder served as INIT_ADAPTER_ID (read-only), with the config of the model it must fit. */
  initAdapter?: { dir: string; modelConfig: ModelConfig };
}
const CHECKPOINTS = 'checkpoints';

/** A file name for an id (checkpoint ids are `run-…@step`; anything else becomes '_'). */
function fileId(id: string): string {
  return id.replace(/[^A-Za-z0-9@._-]/g, '_');
}

async function readOrNull(path: string): Promise<Buffer | null> {
  try {
    return await readFile(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/** Writes `data` to `path` through a temporary file and a rename. */
async function writeAtomic(path: string, data: string | Uint8Array): Promise<void> {
  const tmp = `${path}.tmp-${process.pid}`;
  await writeFile(tmp, data);
  await rename(tmp, path);
}

async function readPeftFolder(dir: string, modelConfig: ModelConfig): Promise<LoraAdapter> {
  const [safetensors, configJson] = await Promise.all([readFile(join(dir, ADAPTER_WEIGHTS_FILE)), readFile(join(dir, ADAPTER_CONFIG_FILE), 'utf8')]);
  return readPeftAdapter({ safetensors: new Uint8Array(safetensors), configJson }, modelConfig);
}

export class FileTrainStore implements TrainStore {
  constructor(
    readonly dir: string,
    private readonly options: FileTrainStoreOptions = {},
  ) {}

  private checkpointPath(id: string, ext: 'json' | 'v8'): string {
    return join(this.dir, CHECKPOINTS, `${fileId(id)}.${ext}`);
  }

  async saveCheckpoint(checkpoint: StoredCheckpoint, keepPerRun: number): Promise<void> {
    await mkdir(join(this.dir, CHECKPOINTS), { recursive: true });
    await writeAtomic(this.checkpointPath(checkpoint.info.id, 'v8'), serialize(checkpoint));
    await writeAtomic(this.checkpointPath(checkpoint.info.id, 'json'), `${JSON.stringify(checkpoint.info, null, 2)}\n`);
    const stale = (await this.listCheckpoints())
      .filter((c) => c.runId === checkpoint.info.runId)
      .sort((a, b) => b.step - a.step || b.savedAt - a.savedAt)
      .slice(Math.max(1, keepPerRun));
    for (const c of stale) await this.deleteCheckpoint(c.id);
  }

  /** Newest first. */
  async listCheckpoints(): Promise<CheckpointInfo[]> {
    let names: string[];
    try {
      names = await readdir(join(this.dir, CHECKPOINTS));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw e;
    }
    const infos: CheckpointInfo[] = [];
    for (const name of names.filter((n) => n.endsWith('.json'))) infos.push(JSON.parse(await readFile(join(this.dir, CHECKPOINTS, name), 'utf8')) as CheckpointInfo);
    return infos.sort((a, b) => b.savedAt - a.savedAt || b.step - a.step);
  }

  async loadCheckpoint(id: string): Promise<StoredCheckpoint | null> {
    const bytes = await readOrNull(this.checkpointPath(id, 'v8'));
    return bytes === null ? null : (deserialize(bytes) as StoredCheckpoint);
  }

  async deleteCheckpoint(id: string): Promise<void> {
    await rm(this.checkpointPath(id, 'json'), { force: true });
    await rm(this.checkpointPath(id, 'v8'), { force: true });
  }

  /** Makes checkpoint `id` continue to `steps` (a resumed run longer than first planned). */
  async extendCheckpoint(id: string, steps: number): Promise<void> {
    const saved = await this.loadCheckpoint(id);
    if (!saved) throw new RangeError(`No checkpoint '${id}' in ${this.dir}.`);
    const config = { ...saved.request.config, steps };
    const info = { ...saved.info, totalSteps: steps, config };
    await writeAtomic(this.checkpointPath(id, 'v8'), serialize({ ...saved, info, request: { ...saved.request, config } }));
    await writeAtomic(this.checkpointPath(id, 'json'), `${JSON.stringify(info, null, 2)}\n`);
  }

  async saveHistory(history: TrainRunHistory): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    await writeAtomic(join(this.dir, `history-${fileId(history.runId)}.v8`), serialize(history));
  }

  async loadHistory(runId: string): Promise<TrainRunHistory | null> {
    const bytes = await readOrNull(join(this.dir, `history-${fileId(runId)}.v8`));
    return bytes === null ? null : (deserialize(bytes) as TrainRunHistory);
  }

  /** Writes the adapter as PEFT files (replacing the folder's adapter, whatever its id). */
  async saveAdapter(info: AdapterInfo, stored: StoredAdapter): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const files = writePeftAdapter(stored.adapter, { modelId: info.baseModel, config: stored.modelConfig });
    await writeAtomic(join(this.dir, ADAPTER_WEIGHTS_FILE), files[ADAPTER_WEIGHTS_FILE]);
    await writeAtomic(join(this.dir, ADAPTER_CONFIG_FILE), files[ADAPTER_CONFIG_FILE]);
    await writeAtomic(join(this.dir, MODEL_CARD_FILE), files[MODEL_CARD_FILE]);
    await writeAtomic(join(this.dir, ADAPTER_INFO_FILE), `${JSON.stringify({ info, modelConfig: stored.modelConfig }, null, 2)}\n`);
  }

  async listAdapters(): Promise<AdapterInfo[]> {
    const saved = await this.adapterInfo();
    return saved ? [saved.info] : [];
  }

  /** The adapter read back from its PEFT files (the folder's own, or the one to start from). */
  async loadAdapter(id: string): Promise<StoredAdapter | null> {
    const init = this.options.initAdapter;
    if (id === INIT_ADAPTER_ID && init) return { adapter: await readPeftFolder(init.dir, init.modelConfig), modelConfig: init.modelConfig };
    const saved = await this.adapterInfo();
    if (!saved || saved.info.id !== id) return null;
    return { adapter: await readPeftFolder(this.dir, saved.modelConfig), modelConfig: saved.modelConfig };
  }

  async deleteAdapter(id: string): Promise<void> {
    const saved = await this.adapterInfo();
    if (!saved || saved.info.id !== id) return;
    for (const name of [ADAPTER_WEIGHTS_FILE, ADAPTER_CONFIG_FILE, MODEL_CARD_FILE, ADAPTER_INFO_FILE]) await rm(join(this.dir, name), { force: true });
  }

  private async adapterInfo(): Promise<{ info: AdapterInfo; modelConfig: ModelConfig } | null> {
    const bytes = await readOrNull(join(this.dir, ADAPTER_INFO_FILE));
    return bytes === null ? null : (JSON.parse(bytes.toString('utf8')) as { info: AdapterInfo; modelConfig: ModelConfig });
  }
}
