/**
 * Making datasets in the page (the Data view): a Spider folder or zip imported, or any SQLite file opened for free
 * play. Each runs on a SQL executor of its own, with progress, checks its name first (a DatasetError changes
 * nothing), and is registered and stored through the dataset service. Imports can be cancelled by id.
 */
import { DatasetError } from '../../data/bundle.ts';
import { buildFreePlayDataset } from '../../data/free-play.ts';
import { importSpider } from '../../data/spider.ts';
import { spiderSourceFromFiles, type GivenFile } from '../../data/spider-source-memory.ts';
import type { Dataset } from '../../data/types.ts';
import type { SqlExecutor } from '../../sql/executor.ts';
import type { ImportProgress, MadeDataset, SpiderImportOutcome, SpiderImportRequest } from '../env-protocol.ts';
import type { DatasetService } from './dataset-service.ts';
import { throttleProgress } from './progress.ts';
import { CancelledError } from '../../util/cancelled.ts';

/** Gold queries are trusted but some are slow on big databases: the limit the import script uses too. */
const GOLD_TIMEOUT_MS = 20_000;

export interface DatasetImportServiceDeps {
  datasets: DatasetService;
  /** Makes a SQL executor; called once per import or file opened, and closed after. */
  createExecutor: () => SqlExecutor;
}

/** The executor with a longer time limit for every query (an import runs gold SQL, not an agent's). */
function withQueryTimeout(executor: SqlExecutor, timeoutMs: number): SqlExecutor {
  return {
    load: (dbKey, bytes) => executor.load(dbKey, bytes),
    query: (dbKey, sql, limits) => executor.query(dbKey, sql, { timeoutMs, ...limits }),
    runOnCopies: (dbKey, sql, goldSql, limits) => executor.runOnCopies(dbKey, sql, goldSql, { timeoutMs, ...limits }),
    tables: (dbKey) => executor.tables(dbKey),
    describe: (dbKey, table) => executor.describe(dbKey, table),
    sample: (dbKey, table, rows) => executor.sample(dbKey, table, rows),
    close: () => executor.close(),
  };
}

export class DatasetImportService {
  private readonly imports = new Map<string, AbortController>();

  constructor(private readonly deps: DatasetImportServiceDeps) {}

  private async checkNewName(name: string): Promise<void> {
    const problem = await this.deps.datasets.datasetNameProblem(name);
    if (problem) throw new DatasetError(problem);
  }

  /**
   * Imports a Spider folder or zip given as files (Spider's official layout, possibly under one top folder) as the
   * dataset `request.name`, with progress; the dataset is registered and stored. Fails with a DatasetError, changing
   * nothing, when the name is taken or the files are not in Spider's layout; `cancelImport` stops it.
   */
  async importSpiderFiles(request: SpiderImportRequest, onProgress?: (progress: ImportProgress) => void): Promise<SpiderImportOutcome> {
    await this.checkNewName(request.name);
    const controller = new AbortController();
    this.imports.set(request.importId, controller);
    const report = throttleProgress(onProgress, (p: ImportProgress) => p.done < p.total);
    const executor = withQueryTimeout(this.deps.createExecutor(), GOLD_TIMEOUT_MS);
    try {
      report({ phase: 'reading', done: 0, total: request.files.length }, true);
      const source = await spiderSourceFromFiles(request.label, request.files);
      const imported = await importSpider(source, executor, { signal: controller.signal, onProgress: (done, total) => report({ phase: 'questions', done, total }) });
      if (imported.dataset.questions.length === 0) {
        throw new DatasetError(`'${source.location}' is in Spider's layout but none of its ${imported.report.questions} questions could be kept (their databases are missing or their gold SQL fails or returns nothing).`);
      }
      controller.signal.throwIfAborted();
      const dataset: Dataset = {
        ...imported.dataset,
        name: request.name,
        description: `Imported in this browser from '${source.location}'. ${imported.dataset.description}`,
      };
      const made = await this.deps.datasets.keep(dataset, 'spider', source.location, (done, total) => report({ phase: 'saving', done, total }));
      return { ...made, report: imported.report };
    } finally {
      this.imports.delete(request.importId);
      await executor.close();
    }
  }

  cancelImport(importId: string): void {
    this.imports.get(importId)?.abort(new CancelledError('Import cancelled; nothing was imported.'));
  }

  /**
   * Opens any SQLite file for free play as the dataset `name` (one database, no questions, no gold answers, so no
   * correctness reward); registered and stored. A file that is not SQLite, is damaged or has no tables gives a
   * DatasetError and changes nothing.
   */
  async openSqliteFile(name: string, file: GivenFile): Promise<MadeDataset> {
    await this.checkNewName(name);
    const bytes = file.data instanceof Uint8Array ? file.data : new Uint8Array(await file.data.arrayBuffer());
    const fileName = file.path.split(/[\\/]/).pop() ?? file.path;
    const executor = this.deps.createExecutor();
    try {
      return await this.deps.datasets.keep(await buildFreePlayDataset(name, fileName, bytes, executor), 'free-play', fileName);
    } finally {
      await executor.close();
    }
  }

  /** Stops every import in progress. */
  close(): void {
    for (const controller of this.imports.values()) controller.abort();
  }
}
