/**
 * `sqlenv train` on the Node WebGPU engine, hosting the page's TrainService with a folder for its store: SFT steps
 * on demo Oracle transcripts of a tiny random Qwen3, one JSON line per step, checkpoints and PEFT files in --out.
 *
 * - The PEFT files read back (readPeftAdapter) are bit for bit the adapter of the last checkpoint (the live f32
 *   masters read from the GPU), and `sqlenv logits --adapter` on them matches the float64 reference with that
 *   adapter (same tolerance as tests/cli/logits-command.test.ts) while moving the logits away from the base.
 * - A run of 2 steps equals a run of 1 step resumed with `--resume --steps 2`: the same loss and gradient norm at
 *   every step and byte-identical adapter files.
 *
 * Kept small for SwiftShader on 2 cores: one demonstration per step, --max-episode-tokens 848 so that only the
 * shortest demonstrations (~830 tokens, ~70 of them the model's) are used, LoRA rank 2, no evaluations or traces.
 * A step still takes minutes there: the LM head's log-softmax and its backward over V = 151,936 dominate.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { deserialize } from 'node:v8';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readPeftAdapter } from '../../src/model/adapter-file.ts';
import { loadModelFolder } from '../../src/model/files-node.ts';
import type { LoraAdapter } from '../../src/model/lora.ts';
import { createReferenceSession } from '../../src/model/reference/model.ts';
import type { StepMetrics } from '../../src/train/types.ts';
import type { StoredCheckpoint } from '../../src/workers/train-store.ts';
import { jsonLines, sqlenv, storedWeights, tinyModelFolder, TINY, worstExcess } from './model-fixture.ts';

const SETTINGS = ['--algo', 'sft', '--dataset', 'demo', '--seed', '5', '--lr', '0.01', '--warmup-steps', '0', '--sft-examples-per-step', '1', '--max-episode-tokens', '848'];
const SMALL = ['--eval-every', '0', '--trace-every', '0', '--lora-rank', '2', '--lora-alpha', '4', '--group-size', '2', '--prompts-per-step', '1'];
const IDS = [151644, 872, 198, 3838, 374, 279, 8644, 315, 9625, 30, 151645, 198];

let folder: Awaited<ReturnType<typeof tinyModelFolder>>;
beforeAll(async () => {
  folder = await tinyModelFolder();
});
afterAll(() => folder?.cleanup());

async function train(out: string, extra: string[]): Promise<StepMetrics[]> {
  const run = await sqlenv(['train', '--model', folder.model, '--out', out, ...extra]);
  expect(run.code, run.stderr).toBe(0);
  return jsonLines(run.stdout) as unknown as StepMetrics[];
}

async function peftAdapter(dir: string): Promise<LoraAdapter> {
  const [safetensors, configJson] = await Promise.all([readFile(join(dir, 'adapter_model.safetensors')), readFile(join(dir, 'adapter_config.json'), 'utf8')]);
  return readPeftAdapter({ safetensors: new Uint8Array(safetensors), configJson }, TINY);
}

async function checkpointAt(dir: string, step: number): Promise<StoredCheckpoint> {
  const name = (await readdir(join(dir, 'checkpoints'))).find((n) => n.endsWith(`@${step}.v8`));
  expect(name, `checkpoint of step ${step} in ${dir}`).toBeDefined();
  return deserialize(await readFile(join(dir, 'checkpoints', name!))) as StoredCheckpoint;
}

/** Every A and B of the adapter as raw bytes, layer by layer and target by target. */
function adapterBytes(adapter: LoraAdapter): Buffer[] {
  return adapter.layers.flatMap((layer) => Object.values(layer).flatMap((pair) => [pair.a, pair.b].map((t) => Buffer.from(Float32Array.from(t.data).buffer))));
}

describe('sqlenv train', () => {
  const full = () => join(folder.root, 'full');
  const resumed = () => join(folder.root, 'resumed');
  let fullSteps: StepMetrics[] = [];

  it('trains SFT steps, one JSON line each, and writes PEFT files that read back bit for bit', async () => {
    fullSteps = await train(full(), [...SETTINGS, ...SMALL, '--steps', '2', '--checkpoint-every', '1']);
    expect(fullSteps.map((m) => m.step)).toEqual([1, 2]);
    for (const m of fullSteps) {
      expect(m).toMatchObject({ algo: 'sft', lr: 0.01, microBatches: 1 });
      expect(Number.isFinite(m.loss) && m.loss > 0).toBe(true);
      expect(m.gradNorm).toBeGreaterThan(0);
    }
    const config = JSON.parse(await readFile(join(full(), 'adapter_config.json'), 'utf8')) as Record<string, unknown>;
    expect(config).toMatchObject({ peft_type: 'LORA', r: 2, lora_alpha: 4 });
    const read = await peftAdapter(full());
    const live = (await checkpointAt(full(), 2)).adapter;
    expect(adapterBytes(read)).toEqual(adapterBytes(live));
    expect(read.config).toMatchObject({ rank: 2, alpha: 4 });

    const run = await sqlenv(['logits', '--model', folder.model, '--ids', IDS.join(','), '--top', '20', '--adapter', full()]);
    expect(run.code, run.stderr).toBe(0);
    const [out] = jsonLines(run.stdout) as unknown as Array<{ ids: number[]; logits: number[]; lora: string }>;
    expect(out.lora).toBe(full());
    const model = await loadModelFolder(folder.model);
    const weights = storedWeights(model.tensors, 'f16');
    const withAdapter = createReferenceSession(model.config, weights, read).prefill(IDS);
    const base = createReferenceSession(model.config, weights).prefill(IDS);
    const ref = out.ids.map((id) => withAdapter[id]);
    const { excess, maxAbs } = worstExcess(out.logits, ref, 5e-5, 1e-4);
    const moved = Math.max(...out.ids.map((id) => Math.abs(withAdapter[id] - base[id])));
    console.log(`logits with the trained adapter: max |gpu − ref| = ${maxAbs.toExponential(2)}; the adapter moves them by up to ${moved.toExponential(2)}`);
    expect(excess).toBeLessThanOrEqual(0);
    expect(moved).toBeGreaterThan(1e-3);
  }, 1_200_000);

  it('continues exactly with --resume: 1 step + 1 resumed step equals 2 steps', async () => {
    expect(fullSteps).toHaveLength(2);
    const first = await train(resumed(), [...SETTINGS, ...SMALL, '--steps', '1']);
    const second = await train(resumed(), ['--resume', '--steps', '2']);
    expect(first.map((m) => m.step)).toEqual([1]);
    expect(second.map((m) => m.step)).toEqual([2]);
    const pick = (m: StepMetrics) => ({ step: m.step, loss: m.loss, gradNorm: m.gradNorm, tokens: m.tokens, generatedTokens: m.generatedTokens, lr: m.lr });
    expect([...first, ...second].map(pick)).toEqual(fullSteps.map(pick));
    const [a, b] = await Promise.all([readFile(join(full(), 'adapter_model.safetensors')), readFile(join(resumed(), 'adapter_model.safetensors'))]);
    expect(b.equals(a)).toBe(true);
  }, 1_200_000);
});
