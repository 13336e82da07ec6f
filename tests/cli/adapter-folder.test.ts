/**
 * `readAdapterFolder` (src/cli/node-model.ts, the CLI's `--adapter DIR`): an adapter_config.json over its cap
 * (src/model/file-caps.ts) is refused from its size, before it is read, naming the file — as the page's loaders do.
 */
import { mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readAdapterFolder } from '../../src/cli/node-model.ts';
import { ADAPTER_CONFIG_FILE, ADAPTER_WEIGHTS_FILE } from '../../src/model/adapter-file.ts';
import type { ModelConfig } from '../../src/model/config.ts';
import { FileTooLargeError, MAX_FILE_BYTES } from '../../src/model/file-caps.ts';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

describe('readAdapterFolder', () => {
  it('refuses an adapter_config.json one byte over its cap, naming the file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sqlenv-adapter-'));
    dirs.push(dir);
    await writeFile(join(dir, ADAPTER_WEIGHTS_FILE), new Uint8Array(8));
    // A sparse file: its size says 1 MiB + 1 without writing the bytes.
    await writeFile(join(dir, ADAPTER_CONFIG_FILE), '{');
    await truncate(join(dir, ADAPTER_CONFIG_FILE), MAX_FILE_BYTES['adapter_config.json'] + 1);
    const read = readAdapterFolder(dir, {} as ModelConfig);
    await expect(read).rejects.toBeInstanceOf(FileTooLargeError);
    await expect(read).rejects.toThrow(ADAPTER_CONFIG_FILE);
  });
});
