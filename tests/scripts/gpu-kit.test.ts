/**
 * The GPU kit (scripts/gpu-kit/build.ts, bench/gpu-kit/, docs/gpu-kit.md), so that it cannot rot between the rare
 * days a GPU is lent: the size rule on its own; the Python pieces' unit tests (scripts/gpu-kit/test_gpu_kit.py) with
 * the system's python3; and the real thing — the kit built (xz preset 0: seconds instead of a minute) into a temporary
 * folder and its one command run in reduced mode (SwiftShader, the tiny model, the PyTorch side skipped where torch
 * is missing). The run's outputs are then held to what does not come from the kit itself: the checkpoint against
 * bench:full's generator and seed, the engine's logits (what the PyTorch side compares) against the float64
 * reference, the counts against the batch sizes, the roofline against the plan and the bandwidth.
 *
 * About 1 to 3 minutes here (most of it SwiftShader compiling the training pipelines), one build and one run for all
 * the assertions.
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChecksReport } from '../../bench/gpu-kit/checks.ts';
import type { FullReport } from '../../bench/gpu-kit/full.ts';
import { KIT_SETTINGS } from '../../bench/gpu-kit/settings.ts';
import { createRng } from '../../src/data/rng.ts';
import { compare } from '../../src/gpu-tests/compare.ts';
import { CHECK_NAMES } from '../../src/gpu-tests/registry.ts';
import { findSwiftShaderIcd } from '../../src/gpu/node/node-gpu.ts';
import { loadModelFolder } from '../../src/model/files-node.ts';
import { createReferenceSession } from '../../src/model/reference/model.ts';
import { bf16BitsToF32, f32ToBf16Bits } from '../../src/model/safetensors.ts';
import { randomModelWeights } from '../../src/model/tiny-model.ts';
import { parameterCount } from '../../src/model/weights.ts';
import { checkKitSize, formatSizeTable, KitTooLargeError, type KitFile } from '../../scripts/gpu-kit/size.ts';

const ROOT = join(import.meta.dirname, '../..');
const TSX = join(ROOT, 'node_modules/.bin/tsx');
const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
const MIB = 2 ** 20;

describe('GPU kit size rule', () => {
  const files: KitFile[] = [
    { path: 'node.xz', bytes: 40 * MIB },
    { path: 'kit.mjs', bytes: 1 * MIB },
    { path: 'dist/linux-x64/dawn.node.xz', bytes: 20 * MIB },
  ];

  it('accepts a kit at the limit and returns its total', () => {
    expect(checkKitSize(files, 61 * MIB)).toBe(61 * MIB);
  });

  it('refuses one byte over, naming the largest files first', () => {
    let error: unknown = null;
    try {
      checkKitSize(files, 61 * MIB - 1);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(KitTooLargeError);
    expect((error as Error).message).toMatch(/61\.0 MiB, over the 61\.0 MiB .*largest: node\.xz 40\.0 MiB, dist\/linux-x64\/dawn\.node\.xz 20\.0 MiB, kit\.mjs 1\.0 MiB/);
  });

  it('defaults to the 64 MiB the device tool carries', () => {
    expect(() => checkKitSize([{ path: 'a', bytes: 64 * MIB }])).not.toThrow();
    expect(() => checkKitSize([{ path: 'a', bytes: 64 * MIB + 1 }])).toThrow(KitTooLargeError);
  });

  it('prints the files largest first and the total', () => {
    expect(formatSizeTable(files).split('\n').map((l) => l.trim())).toEqual(['40.0 MiB  node.xz', '20.0 MiB  dist/linux-x64/dawn.node.xz', '1.0 MiB  kit.mjs', '61.0 MiB  total']);
  });
});

describe('GPU kit Python pieces', () => {
  it(`pass their unit tests with ${PYTHON} (no torch, no numpy)`, () => {
    const r = spawnSync(PYTHON, ['-m', 'unittest', 'discover', '-s', 'scripts/gpu-kit', '-p', 'test_*.py'], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' } });
    expect(r.stderr).toMatch(/Ran \d+ tests/);
    expect(r.status, r.stderr).toBe(0);
  });
});

describe('GPU kit settings', () => {
  it('names only registered checks in GPU mode (a typo would cost a lent GPU its checks phase)', () => {
    for (const mode of ['gpu', 'reduced'] as const) expect(KIT_SETTINGS[mode].checks.filter((c) => !CHECK_NAMES.includes(c))).toEqual([]);
    expect(KIT_SETTINGS.gpu.checks).toEqual(expect.arrayContaining(['train-learning-grpo-reads', 'train-learning-grpo-reads-lr0']));
  });
});

describe('GPU kit build', () => {
  it('refuses to empty an output folder that is not a kit', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gpu-kit-not-a-kit-'));
    try {
      writeFileSync(join(dir, 'notes.txt'), 'mine');
      const r = spawnSync(TSX, ['scripts/gpu-kit/build.ts', '--out', dir], { cwd: ROOT, encoding: 'utf8' });
      expect(r.status).toBe(1);
      expect(r.stderr).toContain('holds files that are not a GPU kit');
      expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toBe('mine');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

function listFiles(dir: string): KitFile[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => {
      const path = join(e.parentPath, e.name);
      return { path: relative(dir, path), bytes: statSync(path).size };
    });
}

describe('GPU kit, built and run in reduced mode', () => {
  const settings = KIT_SETTINGS.reduced;
  const tmp = mkdtempSync(join(tmpdir(), 'gpu-kit-test-'));
  const kit = join(tmp, 'kit');
  const out = join(tmp, 'out');
  const work = join(tmp, 'work');
  let build: SpawnSyncReturns<string>;
  let run: SpawnSyncReturns<string>;
  const json = <T>(path: string) => JSON.parse(readFileSync(path, 'utf8')) as T;

  beforeAll(() => {
    build = spawnSync(TSX, ['scripts/gpu-kit/build.ts', '--out', kit, '--xz-preset', '0', '--no-vulkan-debs'], { cwd: ROOT, encoding: 'utf8' });
    console.log(build.stdout, build.stderr);
    if (build.status !== 0) return;
    // The kit runs from its own folder with none of the repository around it: cwd is the temporary folder.
    run = spawnSync('bash', [join(kit, 'run.sh'), '--reduced'], { cwd: tmp, encoding: 'utf8', env: { ...process.env, OUT: out, GPU_KIT_WORK: work, GPU_KIT_PYTHON: PYTHON } });
    console.log(run.stdout.split('\n').slice(-80).join('\n'), run.stderr);
  }, 600_000);
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('builds a kit within 64 MiB that carries no node_modules', () => {
    expect(build.status, build.stderr).toBe(0);
    const files = listFiles(kit);
    expect(() => checkKitSize(files)).not.toThrow();
    expect(files.some((f) => f.path.includes('node_modules'))).toBe(false);
    expect(files.map((f) => f.path)).toEqual(expect.arrayContaining(['run.sh', 'kit.mjs', 'node.xz', 'dist/linux-x64/dawn.node.xz', 'torch_side.py', 'kit_report.py', 'MANIFEST.json', 'sql-wasm.wasm']));
    // The printed size is the folder's.
    const total = files.reduce((a, f) => a + f.bytes, 0);
    expect(build.stdout).toContain(`${(total / MIB).toFixed(1)} MiB  total`);
  });

  it('runs every phase and writes the table, the JSON and the log', () => {
    expect(run.status, run.stdout.slice(-3000)).toBe(0);
    expect(readdirSync(out).sort()).toEqual(['gpu-kit.json', 'gpu-kit.log', 'gpu-kit.md']);
    const status = readFileSync(join(work, 'status.txt'), 'utf8');
    for (const phase of ['device', 'checks', 'full', 'torch']) expect(status).toMatch(new RegExp(`^${phase} 0 \\d+$`, 'm'));
    const md = readFileSync(join(out, 'gpu-kit.md'), 'utf8');
    for (const row of ['| device | feature subgroups |', '| checks | total | 2 passed, 0 failed |', '| engine B=1 | decode tok/s', '| engine B=2 | roofline fraction of decode |', '| engine GRPO step | phases |', '| engine SFT step | phases |']) {
      expect(md).toContain(row);
    }
  });

  it('runs the checks it names, on SwiftShader, within their tolerances', () => {
    const checks = json<ChecksReport>(join(work, 'checks.json'));
    expect(checks.outcomes.map((o) => o.check)).toEqual([...settings.checks]);
    expect(checks.adapter).toMatch(/swiftshader/i);
    expect(checks.outcomes.every((o) => o.pass && o.comparisons > 0)).toBe(true);
  });

  it("says plainly that the PyTorch side was skipped where torch is missing", () => {
    const torch = json<{ skipped?: string }>(join(work, 'torch.json'));
    expect(torch.skipped).toMatch(/torch.* not installed/);
    expect(readFileSync(join(out, 'gpu-kit.md'), 'utf8')).toContain('| PyTorch | skipped | ');
  });

  it("writes bench:full's weights: the same generator and seed, rounded to bf16", async () => {
    const loaded = await loadModelFolder(join(work, 'model'));
    // bench/full.bench.ts SEED (not exported): written here, not read from the kit's settings, so a kit that drifted
    // from bench:full's seed fails.
    const BENCH_FULL_SEED = 0;
    const expected = randomModelWeights(settings.config, createRng(BENCH_FULL_SEED));
    expect([...loaded.tensors.keys()].sort()).toEqual([...expected.keys()].sort());
    for (const [name, t] of expected) {
      const got = loaded.tensors.get(name)!.data;
      const bf16 = Float32Array.from(t.data, (x) => bf16BitsToF32(f32ToBf16Bits(x)));
      expect(Array.from(got), name).toEqual(Array.from(bf16));
    }
  });

  it("writes engine logits (the PyTorch side's comparison) that match the float64 reference", async () => {
    const full = json<FullReport>(join(work, 'full.json'));
    const model = await loadModelFolder(full.modelDir);
    // The reference with the engine's f16 KV cache, at the engine check's tolerance for it (checks/engine.ts
    // KV_F16_TOL: keys near an f16 rounding midpoint may round the other way); bf16 weights are exact in f16.
    const reference = createReferenceSession(model.config, model.tensors, undefined, 'f16').prefill(full.logits.ids);
    const bytes = readFileSync(full.logits.file);
    const engine = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
    expect(engine.length).toBe(settings.config.vocabSize);
    const c = compare('engine logits', `V=${engine.length}`, engine, reference, { abs: 2e-3, rel: 0 });
    expect(c.pass, `max abs ${c.maxAbs}`).toBe(true);
  });

  it('reports decode counts that follow the batch: one submit per step, the same dispatches for B sequences', () => {
    const full = json<FullReport>(join(work, 'full.json'));
    expect(full.decode.map((d) => d.batch)).toEqual([...settings.batches]);
    const [one, two] = full.decode;
    for (const d of full.decode) {
      expect(d.submitsPerToken * d.batch).toBe(1);
      expect(d.engine.decode.tokens).toBe(d.batch * settings.decode);
      expect(d.decodeTokensPerSecond).toBeCloseTo((d.engine.decode.tokens * 1000) / d.engine.decode.ms, 6);
    }
    expect(two.dispatchesPerToken * 2).toBe(one.dispatchesPerToken);
  });

  it('times every dispatch of a few extra decode steps and of a second SFT step, per kernel (timestamp-query)', () => {
    const full = json<FullReport>(join(work, 'full.json'));
    // The premise: SwiftShader offers timestamps, so the reduced run profiles (a GPU without them reports null).
    expect(json<{ features: string[] }>(join(work, 'device.json')).features).toContain('timestamp-query');
    // Context = 16 (prompt 8 + 3 decoded + 1, rounded up to 16): room for 16 − 8 − 3 = 5 more positions, 4 profiled.
    expect([settings.prompt, settings.decode]).toEqual([8, 3]);
    for (const d of full.decode) {
      const p = d.engine.profile!;
      expect(p.steps).toBe(4);
      // Every dispatch of the profiled steps was timed: the engine's own count per step (unprofiled) × 4.
      expect(p.dispatches).toBe(d.engine.decode.dispatchesPerStep[0] * 4);
      expect(p.kernels.reduce((n, k) => n + k.dispatches, 0)).toBe(p.dispatches);
      expect(p.kernels.every((k) => k.kernel !== '' && k.seconds >= 0)).toBe(true);
      expect(p.gpuSeconds).toBeCloseTo(p.kernels.reduce((a, k) => a + k.seconds, 0), 12);
    }
    const sft = full.train!.sftProfile!;
    expect(sft.kernels.reduce((n, k) => n + k.dispatches, 0)).toBe(sft.dispatches);
    // An update, not a forward alone: the backward kernels ran and were timed.
    expect(sft.kernels.some((k) => k.kernel.includes('backward'))).toBe(true);
    expect(readFileSync(join(out, 'gpu-kit.md'), 'utf8')).toMatch(/\| engine B=1 \| kernels of a decode step \(timestamp-query, 4 steps; .*\| GPU [\d.]+ ms of [\d.]+ ms wall per step/);
  });

  it('puts the roofline at bandwidth over the bytes a decode step must read', () => {
    const full = json<FullReport>(join(work, 'full.json'));
    const weightBytesAtLeast = 2 * parameterCount(settings.config); // every weight read once, ≥ 2 bytes each (f16)
    for (const d of full.decode) {
      const r = d.roofline;
      expect(r.bytesPerStep).toBeGreaterThanOrEqual(weightBytesAtLeast);
      expect(r.bytesPerStep).toBeLessThan(1.5 * weightBytesAtLeast);
      expect(r.ceilingTokensPerSecond).toBeCloseTo((d.batch * r.bandwidth) / r.bytesPerStep, 6);
      expect(r.fraction).toBeCloseTo(d.decodeTokensPerSecond / r.ceilingTokensPerSecond, 9);
    }
    const device = json<{ copy: { bytesPerSecond: number } }>(join(work, 'device.json'));
    expect(full.decode[0].roofline.bandwidth).toBe(device.copy.bytesPerSecond);
  });

  it('refuses, in GPU mode, to measure a software adapter', () => {
    // SwiftShader handed over as the driver (as a machine whose GPU driver is missing might offer lavapipe): the run
    // must stop rather than time out with CPU figures in a GPU table.
    const icd = findSwiftShaderIcd();
    expect(icd, 'the suite needs SwiftShader (Debian chromium)').not.toBeNull();
    const gpuOut = join(tmp, 'gpu-out');
    const r = spawnSync('bash', [join(kit, 'run.sh')], { cwd: tmp, encoding: 'utf8', env: { ...process.env, VK_ICD_FILENAMES: icd!, OUT: gpuOut, GPU_KIT_WORK: join(tmp, 'gpu-work'), GPU_KIT_PYTHON: PYTHON, GPU_KIT_PHASES: 'device' } });
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('gpu-kit: Error: the only adapter is a software one (google/swiftshader');
    expect(readFileSync(join(gpuOut, 'gpu-kit.md'), 'utf8')).toContain('| run | phase device | exit 1, ');
  });

  /** run.sh in GPU mode (device phase only, failing fast on SwiftShader) with ldconfig, dpkg and id replaced by stubs
   * that log their arguments: a machine with no Vulkan loader, as the user `uid`. */
  function runWithoutLoader(uid: number): { stdout: string; calls: string[] } {
    const bin = mkdtempSync(join(tmp, `stubs-${uid}-`));
    const calls = join(bin, 'calls.log');
    const stub = (name: string, body: string) => writeFileSync(join(bin, name), `#!/bin/sh\necho "${name}\${*:+ $*}" >> "${calls}"\n${body}\n`, { mode: 0o755 });
    stub('ldconfig', ''); // prints no cache: no libvulkan.so.1 on this machine
    stub('dpkg', '');
    stub('id', `echo ${uid}`);
    const r = spawnSync('bash', [join(kit, 'run.sh')], {
      cwd: tmp,
      encoding: 'utf8',
      env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, VK_ICD_FILENAMES: findSwiftShaderIcd()!, OUT: join(bin, 'out'), GPU_KIT_WORK: join(bin, 'work'), GPU_KIT_PYTHON: PYTHON, GPU_KIT_PHASES: 'device' },
    });
    return { stdout: r.stdout, calls: existsSync(calls) ? readFileSync(calls, 'utf8').trim().split('\n') : [] };
  }

  it("as root on a machine with no Vulkan loader, unpacks the kit's packages into / and runs ldconfig", () => {
    const debs = join(kit, 'debs');
    mkdirSync(debs, { recursive: true });
    for (const name of ['libvulkan1_1.0_amd64.deb', 'libglvnd0_1.0_amd64.deb']) writeFileSync(join(debs, name), '');
    try {
      const { stdout, calls } = runWithoutLoader(0);
      expect(calls.filter((c) => !c.startsWith('id '))).toEqual(['ldconfig -p', `dpkg -x ${debs}/libglvnd0_1.0_amd64.deb /`, `dpkg -x ${debs}/libvulkan1_1.0_amd64.deb /`, 'ldconfig']);
      expect(stdout).toContain("no Vulkan loader on this machine; unpacked the kit's 2 packages into /");
      // Not as another user: nothing is written into /, the kit's lib/ goes on LD_LIBRARY_PATH.
      const user = runWithoutLoader(1000);
      expect(user.calls.filter((c) => c.startsWith('dpkg') || c === 'ldconfig')).toEqual([]);
      expect(user.stdout).toContain(`no Vulkan loader on this machine; using the kit's (${kit}/lib)`);
    } finally {
      rmSync(debs, { recursive: true, force: true });
    }
  });

  it('runs only the registered checks GPU_KIT_CHECKS names, and refuses an unknown name before touching the GPU', () => {
    const env = (checks: string, name: string) => ({ ...process.env, OUT: join(tmp, `${name}-out`), GPU_KIT_WORK: join(tmp, `${name}-work`), GPU_KIT_PYTHON: PYTHON, GPU_KIT_PHASES: 'checks', GPU_KIT_CHECKS: checks });
    const picked = spawnSync('bash', [join(kit, 'run.sh'), '--reduced'], { cwd: tmp, encoding: 'utf8', env: env(' rmsnorm, ', 'picked') });
    expect(picked.status, picked.stdout).toBe(0);
    expect(json<ChecksReport>(join(tmp, 'picked-work/checks.json')).outcomes.map((o) => o.check)).toEqual(['rmsnorm']);
    const typo = spawnSync('bash', [join(kit, 'run.sh'), '--reduced'], { cwd: tmp, encoding: 'utf8', env: env('rmsnorm,rmsnrom', 'typo') });
    expect(typo.status).toBe(1);
    expect(typo.stdout).toContain('GPU_KIT_CHECKS names no registered check: rmsnrom');
    expect(existsSync(join(tmp, 'typo-work/checks.json'))).toBe(false);
  });

  it('records the sequences each training update trained on', () => {
    const train = json<FullReport>(join(work, 'full.json')).train!;
    expect(train.grpo.sequenceLengths).toHaveLength(settings.train.group);
    expect(train.sft.sequenceLengths).toHaveLength(settings.train.sftExamples);
    for (const step of [train.grpo, train.sft]) {
      expect(step.sequenceLengths.reduce((a, b) => a + b, 0)).toBe(step.tokens);
      expect(step.updateFlops).toBeGreaterThan(0);
    }
    expect(train.grpo.seconds.rollout).toBeGreaterThan(0);
  });
});
