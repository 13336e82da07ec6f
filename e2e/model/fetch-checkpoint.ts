/**
 * For pages bundled by the model CLIs and tests (e2e/model/page.ts, bench/engine/page.ts): fetches a model folder
 * served under `modelUrl` — config, optional generation config, then one safetensors file or the shards its index
 * names — and checks it with `loadCheckpoint`. The tokenizer is not read: these pages work on token ids.
 */
import { loadCheckpoint, type LoadedModel } from '../../src/model/load.ts';

export async function fetchCheckpoint(modelUrl: string): Promise<LoadedModel> {
  const get = async (file: string, optional = false): Promise<Response | null> => {
    const res = await fetch(`${modelUrl}/${file}`);
    if (res.ok) return res;
    if (optional && res.status === 404) return null;
    throw new Error(`${modelUrl}/${file}: HTTP ${res.status}`);
  };
  const configJson: unknown = await (await get('config.json'))!.json();
  const generation = await get('generation_config.json', true);
  const index = await get('model.safetensors.index.json', true);
  const shards = index ? [...new Set(Object.values(((await index.json()) as { weight_map: Record<string, string> }).weight_map))].sort() : ['model.safetensors'];
  const safetensors: Uint8Array[] = [];
  for (const s of shards) safetensors.push(new Uint8Array(await (await get(s))!.arrayBuffer()));
  return loadCheckpoint({ configJson, generationConfigJson: generation ? ((await generation.json()) as unknown) : undefined, safetensors });
}
