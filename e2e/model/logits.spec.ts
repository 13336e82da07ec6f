/**
 * `npm run model:logits` (scripts/model-logits.ts) on a tiny model: the WebGPU engine in headless Chromium and the
 * float64 CPU reference print the same top-20 ids and logits within 1e-3. The model is written in f16, so the
 * engine's f16 weight storage is exact and the difference is the engine's f32 arithmetic alone. The q8 and q4 modes
 * are run too and their largest logit difference on the top-20 is printed (their ids may differ: not asserted).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, test } from '@playwright/test';

const run = promisify(execFile);
const TOLERANCE = 1e-3;
let dir = '';

interface Printed {
  backend: string;
  tokens: number;
  ids: number[];
  logits: number[];
}

async function logits(...args: string[]): Promise<Printed> {
  const { stdout } = await run('npx', ['tsx', 'scripts/model-logits.ts', '--model', dir, ...args], { maxBuffer: 1 << 20 });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as Printed;
}

test.beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tiny-logits-'));
  await run('npx', ['tsx', 'scripts/make-tiny-model.ts', '--out', dir, '--dtype', 'f16', '--seed', '3']);
});
test.afterAll(() => rmSync(dir, { recursive: true, force: true }));

test.describe('model:logits — WebGPU engine vs CPU reference', () => {
  test.setTimeout(180_000);

  for (const prompt of [['--ids', '151644,872,198,3838,374,220,17,10,17,30'], ['--text', 'SELECT name FROM singer WHERE age > 30']]) {
    test(`agree on ${prompt.join(' ')}`, async () => {
      const [cpu, gpu] = await Promise.all([logits(...prompt, '--cpu'), logits(...prompt)]);
      expect(cpu.backend).toBe('cpu-f64');
      expect(gpu.backend).toBe('webgpu');
      expect(gpu.tokens).toBe(cpu.tokens);
      expect(gpu.ids).toEqual(cpu.ids);
      expect(cpu.ids).toHaveLength(20);
      const maxAbs = Math.max(...cpu.logits.map((v, i) => Math.abs(v - gpu.logits[i])));
      console.log(`${prompt[0]}: ${cpu.tokens} tokens, top-20 ids equal, max |logit diff| = ${maxAbs.toExponential(2)} (tolerance ${TOLERANCE})`);
      expect(maxAbs).toBeLessThan(TOLERANCE);
    });
  }

  test('q8 and q4 run and report their error against the reference', async () => {
    const prompt = ['--ids', '151644,872,198,3838,374'];
    const cpu = await logits(...prompt, '--cpu');
    for (const quant of ['q8', 'q4']) {
      const q = await logits(...prompt, '--quant', quant);
      const ref = new Map(cpu.ids.map((id, i) => [id, cpu.logits[i]]));
      const shared = q.ids.filter((id) => ref.has(id));
      const maxAbs = Math.max(...shared.map((id) => Math.abs(q.logits[q.ids.indexOf(id)] - ref.get(id)!)));
      console.log(`${quant}: ${shared.length}/20 top ids shared with the reference, max |logit diff| on them = ${maxAbs.toExponential(2)}`);
      expect(q.ids).toHaveLength(20);
    }
  });
});
