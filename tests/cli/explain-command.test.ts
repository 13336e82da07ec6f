/**
 * `sqlenv explain` end to end on the tiny random Qwen3 (real tokenizer, Node WebGPU engine; SwiftShader here): an
 * episode of the demo dataset is played here by the page's LlmPolicy on the float64 reference with a random non-zero
 * PEFT adapter (greedy, a budget of 1 step of ≤ 4 tokens: its ~620-token prompt dominates the time), written as a
 * run file, and explained by the command. Every reply token's log-probs in its JSON are checked against the
 * reference computed here, token by token with a KV cache from the prompt the policy really sent (so a wrong prompt
 * rebuild, wrong settings read from the run header, or base and adapter swapped all fail), with the weights rounded
 * to f16 as the engine stores them. Bad input: a run without the adapter flag, and an episode list without a run
 * header, are refused with a clear message. Seeds drawn per run (printed).
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import initSqlJs from 'sql.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDemoDataset } from '../../src/data/demo/build.ts';
import { createRng } from '../../src/data/rng.ts';
import { ENV_VERSION, SqlEnv } from '../../src/env/env.ts';
import { runEpisode } from '../../src/eval/episode.ts';
import { toRunFile } from '../../src/eval/run-file.ts';
import { recordJson, type EpisodeRecord } from '../../src/eval/transcript.ts';
import { ADAPTER_CONFIG_FILE, ADAPTER_WEIGHTS_FILE, writePeftAdapter } from '../../src/model/adapter-file.ts';
import { loadModelFolder, loadTokenizerFolder } from '../../src/model/files-node.ts';
import { createLoraAdapter, DEFAULT_LORA_CONFIG, type LoraAdapter } from '../../src/model/lora.ts';
import { emptyCache, modelForward, toReferenceLora, toReferenceWeights } from '../../src/model/reference/model.ts';
import type { Tokenizer } from '../../src/model/tokenizer.ts';
import type { Tensor } from '../../src/model/weights.ts';
import { LlmPolicy, type LlmDecision } from '../../src/policies/llm/llm-policy.ts';
import type { Policy, PolicyContext } from '../../src/policies/policy.ts';
import { LocalSqlExecutor } from '../../src/sql/executor.ts';
import { ReferenceTrainableModel } from '../../src/train/reference-model.ts';
import { sqlenv, storedWeights, tinyModelFolder, TINY } from './model-fixture.ts';
import { testSeed } from '../fixtures/seed.ts';

const SEED = testSeed('tests/cli/explain-command.test.ts');
const MAX_NEW = 4;
const CONTEXT = 1024;

let folder: Awaited<ReturnType<typeof tinyModelFolder>>;
let dir: string;
beforeAll(async () => {
  folder = await tinyModelFolder();
  dir = await mkdtemp(join(tmpdir(), 'sqlenv-explain-'));
});
afterAll(async () => {
  await folder?.cleanup();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** log p of each of `reply` after `prompt`, fed one token at a time through the reference's KV cache. */
function referenceLogProbs(weights: Map<string, Tensor>, adapter: LoraAdapter | null, prompt: readonly number[], reply: readonly number[]): number[] {
  const w = toReferenceWeights(TINY, weights);
  const lora = adapter ? toReferenceLora(adapter) : null;
  const caches = emptyCache(TINY);
  let logits = modelForward(TINY, w, lora, caches, prompt, true).logits;
  const out: number[] = [];
  for (const id of reply) {
    let max = -Infinity;
    for (const x of logits) max = Math.max(max, x);
    let sum = 0;
    for (const x of logits) sum += Math.exp(x - max);
    out.push(logits[id] - max - Math.log(sum));
    logits = modelForward(TINY, w, lora, caches, [id], true).logits;
  }
  return out;
}

interface Played {
  record: EpisodeRecord;
  decisions: LlmDecision[];
  tokenizer: Tokenizer;
  tensors: Map<string, Tensor>;
  adapter: LoraAdapter;
  adapterDir: string;
  runFile: string;
}

let played: Promise<Played> | null = null;

/** The episode, its run file and the adapter folder (made once). */
function play(): Promise<Played> {
  played ??= (async () => {
    const [{ tensors }, tokenizer] = await Promise.all([loadModelFolder(folder.model), loadTokenizerFolder(folder.model)]);
    const lora = { ...DEFAULT_LORA_CONFIG, rank: 2, alpha: 4, targetModules: [...DEFAULT_LORA_CONFIG.targetModules] };
    const adapter = createLoraAdapter(TINY, lora, createRng(SEED), (rng) => 0.5 * (rng.next() * 2 - 1));
    const adapterDir = join(dir, 'adapter');
    await mkdir(adapterDir);
    const files = writePeftAdapter(adapter, { modelId: 'tiny', config: TINY });
    await writeFile(join(adapterDir, ADAPTER_WEIGHTS_FILE), files[ADAPTER_WEIGHTS_FILE]);
    await writeFile(join(adapterDir, ADAPTER_CONFIG_FILE), files[ADAPTER_CONFIG_FILE]);

    const model = new ReferenceTrainableModel(TINY, tensors, tokenizer, { lora, seed: 0, contextTokens: CONTEXT });
    model.loadAdapter(adapter);
    const decisions: LlmDecision[] = [];
    const inner = new LlmPolicy({
      tokenizer,
      maxNewTokens: MAX_NEW,
      contextTokens: CONTEXT,
      temperature: 0,
      name: 'qwen+adapter',
      generate: async (promptTokenIds, o) => (await model.generate([{ promptTokenIds, maxNewTokens: o.maxNewTokens, temperature: o.temperature, topP: o.topP, seed: o.seed }]))[0],
    });
    const policy: Policy = { name: inner.name, act: async (c: PolicyContext) => { const d = await inner.act(c); decisions.push(d); return d; } };
    const dataset = await buildDemoDataset();
    const executor = new LocalSqlExecutor(await initSqlJs());
    const env = new SqlEnv(dataset, executor, { budget: 1 });
    const eval_ = dataset.questions.filter((q) => q.split === 'eval');
    const record = await runEpisode(env, policy, { questionId: eval_[SEED % eval_.length].id, seed: SEED % 1000 });
    env.close();
    await executor.close();
    const runFile = join(dir, 'run.jsonl');
    const header = { id: 'explain-test', dataset: 'demo', split: 'eval' as const, policy: record.policy, model: folder.model, adapter: adapterDir, seed: record.seed, settings: { maxNewTokens: MAX_NEW, contextTokens: CONTEXT, budget: 1, shots: 0, thinking: false, temperature: 0 }, createdAt: 0, durationMs: null, writer: 'test', envVersion: ENV_VERSION };
    await writeFile(runFile, toRunFile(header, [record]));
    return { record, decisions, tokenizer, tensors, adapter, adapterDir, runFile };
  })();
  return played;
}

interface ExplainJson {
  format: string;
  temperature: number;
  episodes: Array<{ questionId: string; tokens: number; delta: number; actions: Array<{ step: number; base: number; adapter: number; delta: number; tokens: Array<{ id: number; base: number; adapter: number; delta: number }> }> }>;
}

describe('sqlenv explain', () => {
  it('prints per-action sums and writes per-token log-probs equal to the float64 reference', { timeout: 300_000 }, async () => {
    const p = await play();
    const out = join(dir, 'explain.json');
    const run = await sqlenv(['explain', '--run', p.runFile, '--model', folder.model, '--adapter', p.adapterDir, '--out', out]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('scoring replies');
    const json = JSON.parse(await readFile(out, 'utf8')) as ExplainJson;
    expect(json).toMatchObject({ format: 'sqlenv-explain', temperature: 1 });
    const [episode] = json.episodes;
    expect(episode.questionId).toBe(p.record.questionId);
    expect(episode.actions).toHaveLength(p.decisions.length);
    const f16 = storedWeights(p.tensors, 'f16');
    let worst = 0;
    episode.actions.forEach((a, i) => {
      const ids = a.tokens.map((t) => t.id);
      const base = referenceLogProbs(f16, null, p.decisions[i].promptTokenIds, ids);
      const adapter = referenceLogProbs(f16, p.adapter, p.decisions[i].promptTokenIds, ids);
      a.tokens.forEach((t, k) => {
        worst = Math.max(worst, Math.abs(t.base - base[k]), Math.abs(t.adapter - adapter[k]));
        expect(Math.abs(t.base - base[k]), `action ${i} token ${k} base`).toBeLessThan(2e-3);
        expect(Math.abs(t.adapter - adapter[k]), `action ${i} token ${k} adapter`).toBeLessThan(2e-3);
      });
      expect(a.delta).toBeCloseTo(a.tokens.reduce((s, t) => s + t.delta, 0), 4);
      // The stdout table has this action's row: step, tokens, base, adapter.
      expect(run.stdout).toMatch(new RegExp(`^\\s+${a.step + 1}\\s+${a.tokens.length}\\s+${a.base.toFixed(3).replace('.', '\\.')}\\s+${a.adapter.toFixed(3).replace('.', '\\.')}`, 'm'));
    });
    console.log(`explain-command: largest |GPU − reference| over ${episode.tokens} reply tokens: ${worst.toExponential(2)} nats`);
    expect(episode.actions.some((a) => a.tokens.some((t) => Math.abs(t.delta) > 1e-2))).toBe(true);
  });

  it('refuses what it cannot explain, with the reason', { timeout: 120_000 }, async () => {
    const p = await play();
    const noAdapter = await sqlenv(['explain', '--run', p.runFile, '--model', folder.model]);
    expect(noAdapter.code).toBe(2);
    expect(noAdapter.stderr).toContain('--adapter');
    const legacy = join(dir, 'legacy.jsonl');
    await writeFile(legacy, `${recordJson(p.record)}\n`);
    const old = await sqlenv(['explain', '--run', legacy, '--model', folder.model, '--adapter', p.adapterDir]);
    expect(old.code).toBe(1);
    expect(old.stderr).toContain('without a run header');
    expect(old.stderr).not.toContain('    at '); // a message, not a stack trace
  });
});
