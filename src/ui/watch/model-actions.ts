/**
 * The Model panel's cache actions: list the models the browser keeps, clear one, or clear them all. Each is one
 * round trip to the environment worker and writes nothing to the store; the loaded model's actions (load, cancel,
 * apply settings, unload) are the model slice's (src/ui/store/model-slice.ts).
 */
import type { CachedModel } from '../../model/cache.ts';
import { envClient } from '../../workers/env-client.ts';

export function listCachedModels(): Promise<CachedModel[]> {
  return envClient().cachedModels();
}

export function clearCachedModel(model: CachedModel): Promise<number> {
  return envClient().clearCachedModel(model.repo, { revision: model.revision, base: model.base });
}

export function clearModelCache(): Promise<void> {
  return envClient().clearModelCache();
}
