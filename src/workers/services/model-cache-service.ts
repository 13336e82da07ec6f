/**
 * The browser's cache of Hub downloads (models and adapters), listed and cleared from the Model panel. Where there is
 * no cache (Node, a browser without Cache Storage) the list is empty and clearing does nothing.
 */
import type { CacheStorageFileStore, CachedModel } from '../../model/cache.ts';

export class ModelCacheService {
  /** Null where there is no cache. */
  constructor(readonly store: CacheStorageFileStore | null) {}

  /** Models downloaded from the Hub into this browser's cache, with their sizes ([] where there is no cache). */
  async cachedModels(): Promise<CachedModel[]> {
    return (await this.store?.list()) ?? [];
  }

  /** Deletes one cached model's files (one revision and mirror when given); returns the files deleted. */
  async clearCachedModel(repo: string, options: { revision?: string; base?: string } = {}): Promise<number> {
    return (await this.store?.clearModel(repo, options)) ?? 0;
  }

  /** Deletes every cached model file. */
  async clearModelCache(): Promise<void> {
    await this.store?.clearAll();
  }
}
