/**
 * What the model-command tests share: a tiny random Qwen3 (2 layers, hidden 32, the real tokenizer) written into a
 * temporary folder with the project's own writer (src/model/files-node.ts, as `npm run model:tiny` does), the
 * `sqlenv` command run as a child process, and the reference's view of the weights as the engine stores them.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { vi } from 'vitest';
import { createRng } from '../../src/data/rng.ts';
import { roundTripWeight, type WeightFormat } from '../../src/gpu/quant.ts';
import type { ModelConfig } from '../../src/model/config.ts';
import { writeTinyModel } from '../../src/model/files-node.ts';
import type { Tensor } from '../../src/model/weights.ts';
import { tinyModelConfig } from '../../src/model/tiny-model.ts';

const BIN = fileURLToPath(new URL('../../bin/sqlenv.mjs', import.meta.url));

/** The tiny model of these tests: as small as the engine and the real tokenizer allow. */
export const TINY: ModelConfig = tinyModelConfig({ numLayers: 2, hiddenSize: 32, numHeads: 2, numKvHeads: 1, headDim: 16, intermediateSize: 64 });

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `sqlenv …` as a user runs it (a child process), with its exit code and both streams. */
export function sqlenv(args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: process.env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end();
  });
}

/**
 * `sqlenv …` run in THIS process: main() with stdout and stderr captured, its return value as the exit code. For
 * argument errors, which main() answers before any model, GPU or worker is touched, this checks what a child process
 * would, without the ~1.3 s (idle machine) that each child pays to start tsx and import the CLI. That main()'s code
 * becomes the process's exit code (bin/sqlenv.mjs) stays checked by the tests that spawn `sqlenv`.
 */
export async function sqlenvInProcess(args: string[]): Promise<Run> {
  const { main } = await import('../../src/cli/main.ts');
  let stdout = '';
  let stderr = '';
  const text = (chunk: string | Uint8Array) => (typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => ((stdout += text(chunk)), true));
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => ((stderr += text(chunk)), true));
  try {
    const code = await main(args);
    return { code, stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

export function jsonLines(text: string): Array<Record<string, unknown>> {
  return text
    .trim()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** A temporary folder holding the tiny model in `model/`; `cleanup` removes it. */
export async function tinyModelFolder(seed = 7): Promise<{ root: string; model: string; cleanup: () => Promise<void> }> {
  const root = await mkdtemp(join(tmpdir(), 'sqlenv-cli-'));
  const model = join(root, 'model');
  await writeTinyModel(model, TINY, createRng(seed), { dtype: 'F32' });
  return { root, model, cleanup: () => rm(root, { recursive: true, force: true }) };
}

/** The tensors as the engine stores them: every matrix rounded through `format`, vectors as they are (f32). */
export function storedWeights(tensors: ReadonlyMap<string, Tensor>, format: WeightFormat): Map<string, Tensor> {
  const out = new Map<string, Tensor>();
  for (const [name, t] of tensors) out.set(name, { shape: t.shape, data: t.shape.length === 2 ? roundTripWeight(format, t.data, t.shape[0], t.shape[1]) : Float64Array.from(t.data) });
  return out;
}

/** |gpu − ref| ≤ abs + rel·|ref| for each pair; returns the largest excess over the bound (≤ 0 passes) and |Δ|. */
export function worstExcess(gpu: readonly number[], ref: readonly number[], abs: number, rel: number): { excess: number; maxAbs: number } {
  let excess = -Infinity;
  let maxAbs = 0;
  gpu.forEach((g, i) => {
    const d = Math.abs(g - ref[i]);
    maxAbs = Math.max(maxAbs, d);
    excess = Math.max(excess, Number.isNaN(d) ? Infinity : d - (abs + rel * Math.abs(ref[i])));
  });
  return { excess, maxAbs };
}
