/**
 * Episodes on the engine (issue 14): KV reuse across turns and batched evaluation, in Node on WebGPU (Dawn;
 * SwiftShader where there is no GPU), with a tiny random Qwen3 and the real tokenizer playing demo episodes through
 * the page's own path — `LlmPolicy` (prompts, parser, tool protocol) on a `BatchedGenerator`
 * (src/policies/llm/batched-generator.ts), episodes run by `evaluateConcurrently` as Evaluate runs them.
 *
 *   tsx --import ./bin/register-raw.mjs bench/engine/episodes.ts [--turns N] [--new-tokens M] [--episodes E] [--batch B] [--json]
 *
 * Printed, and returned by `runEpisodesBench` (for `bench:engine --json`):
 *  - `prefillTokensByTurn`: prompt tokens the engine computed at turns 1..N of one demo episode with the slot's cache
 *    kept between turns (after); `prefillTokensByTurnFullReprefill`: the same turns with the cache forgotten before
 *    each (before: every turn prefilled its whole prompt). Same tokens either way (checked here);
 *  - Evaluate's wall time (greedy, N-step budget, M tokens per reply) for 1 episode, E episodes at B = E, and E
 *    episodes at B = 1, with the engine's `sample` calls, mean batch and prompt tokens computed of each run (at B = E
 *    the episodes share the system prompt through the slots: computed once, copied to the others). The records of the E episodes are
 *    checked equal at both B.
 * Speeds on SwiftShader are the CPU's (2 shared cores here): its decode cost grows with the rows of a step, where a
 * GPU's barely does; the step counts hold anywhere.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { openNodeGpu, createInferenceEngine, readModelFolder, type FolderModel } from '../../src/cli/node-model.ts';
import { createRng } from '../../src/data/rng.ts';
import { loadNodeDataset } from '../../src/data/load-node.ts';
import type { Dataset } from '../../src/data/types.ts';
import { SqlEnv } from '../../src/env/env.ts';
import { evaluateConcurrently } from '../../src/eval/evaluate-concurrently.ts';
import type { EpisodeRecord } from '../../src/eval/transcript.ts';
import { PROMPT_PIECE_TOKENS } from '../../src/gpu/engine/qwen-engine.ts';
import { writeTinyModel } from '../../src/model/files-node.ts';
import { tinyModelConfig } from '../../src/model/tiny-model.ts';
import { BatchedGenerator } from '../../src/policies/llm/batched-generator.ts';
import { LlmPolicy, type Generate } from '../../src/policies/llm/llm-policy.ts';
import type { SqlExecutor } from '../../src/sql/executor.ts';
import { createNodeSqlExecutor } from '../../src/sql/node-worker.ts';

export interface EpisodesBenchOptions {
  /** N: turns of the demo episode (its step budget). */
  turns: number;
  /** M: most new tokens per reply. */
  newTokens: number;
  /** E: episodes of the batched evaluation, and its B; 0 skips the Evaluate timings. */
  episodes: number;
}

export interface EvaluateTiming {
  episodes: number;
  batch: number;
  seconds: number;
  /** Engine `sample` calls (one per decode step of the batch). */
  engineSteps: number;
  meanBatch: number;
  /** Prompt tokens of every turn, and those the engine computed (the rest reused or copied from a slot's cache). */
  promptTokens: number;
  prefillTokens: number;
}

export interface EpisodesBenchResult {
  prefillTokensByTurn: number[];
  prefillTokensByTurnFullReprefill: number[];
  /** Wall time of one episode's turns, reuse vs full re-prefill (seconds). */
  episodeSeconds: { reuse: number; fullReprefill: number };
  /** Null when E = 0. */
  evaluate: { one: EvaluateTiming; batched: EvaluateTiming; serial: EvaluateTiming } | null;
  /** batched.seconds / one.seconds (target ≤ 1.5 on a GPU); null when E = 0. */
  batchedOverOne: number | null;
  gpu: string;
}

/** The tiny model of the bench (as tests/cli's): the real tokenizer, random weights. */
const TINY = tinyModelConfig({ numLayers: 2, hiddenSize: 32, numHeads: 2, numKvHeads: 1, headDim: 16, intermediateSize: 64 });
const CONTEXT = 2048;
const SEED = 11;

interface Setup {
  generator: BatchedGenerator;
  policy(generate?: Generate): LlmPolicy;
  close(): void;
}

async function setup(model: FolderModel, gpu: Awaited<ReturnType<typeof openNodeGpu>>, batch: number, o: EpisodesBenchOptions): Promise<Setup> {
  const engine = await createInferenceEngine(gpu.ctx, model, { batch, context: CONTEXT, weights: 'f16', adapter: null });
  const generator = new BatchedGenerator({
    engine: () => engine,
    endTokens: [model.tokenizer.special.imEnd, model.tokenizer.special.endOfText],
    decode: (ids) => model.tokenizer.decode(ids),
    prefillChunk: PROMPT_PIECE_TOKENS,
  });
  const policy = (generate: Generate = generator.generateFor()) =>
    new LlmPolicy({ generate, tokenizer: model.tokenizer, maxNewTokens: o.newTokens, contextTokens: CONTEXT, temperature: 0, topP: 1, concurrency: batch });
  return { generator, policy, close: () => engine.destroy() };
}

/** A record without what depends on the clock or on what the cache held (timings, prefill counts). */
function untimed(r: EpisodeRecord): unknown {
  return { ...r, transcript: r.transcript.map(({ generation, ...step }) => ({ ...step, newTokens: generation?.newTokens })) };
}

async function timedEvaluate(s: Setup, dataset: Dataset, executor: SqlExecutor, o: EpisodesBenchOptions, episodes: number, batch: number): Promise<{ timing: EvaluateTiming; records: EpisodeRecord[] }> {
  const before = { ...s.generator.stats };
  const started = performance.now();
  const report = await evaluateConcurrently(() => new SqlEnv(dataset, executor, { budget: o.turns }), s.policy(), { episodes, seed: SEED, split: 'eval', concurrency: batch });
  const seconds = (performance.now() - started) / 1000;
  const steps = s.generator.stats.steps - before.steps;
  const rows = s.generator.stats.rows - before.rows;
  const promptTokens = s.generator.stats.promptTokens - before.promptTokens;
  const prefillTokens = s.generator.stats.prefillTokens - before.prefillTokens;
  return { timing: { episodes, batch, seconds, engineSteps: steps, meanBatch: steps > 0 ? rows / steps : 0, promptTokens, prefillTokens }, records: report.records };
}

/** One demo episode of N turns; `fresh` forgets the caches before each turn (the full re-prefill of before). */
async function demoEpisode(s: Setup, dataset: Dataset, executor: SqlExecutor, o: EpisodesBenchOptions, fresh: boolean): Promise<{ prefill: number[]; tokens: number[][]; seconds: number }> {
  const prefill: number[] = [];
  const tokens: number[][] = [];
  s.generator.forgetCaches(); // turn 1 starts from empty slots either way
  const generate: Generate = async (ids, options) => {
    if (fresh) s.generator.forgetCaches();
    const g = await s.generator.generate(ids, options);
    prefill.push(g.prefillTokens ?? ids.length);
    tokens.push(g.tokenIds);
    return g;
  };
  const started = performance.now();
  await evaluateConcurrently(() => new SqlEnv(dataset, executor, { budget: o.turns }), s.policy(generate), { episodes: 1, seed: SEED, split: 'eval', concurrency: 1 });
  return { prefill, tokens, seconds: (performance.now() - started) / 1000 };
}

export async function runEpisodesBench(o: EpisodesBenchOptions, log: (line: string) => void = console.log): Promise<EpisodesBenchResult> {
  const root = await mkdtemp(join(tmpdir(), 'sqlenv-bench-episodes-'));
  const executor = createNodeSqlExecutor();
  const gpu = await openNodeGpu('bench-episodes');
  try {
    await writeTinyModel(join(root, 'model'), TINY, createRng(SEED), { dtype: 'F32' });
    const model = await readModelFolder(join(root, 'model'));
    const dataset = await loadNodeDataset('demo', executor);
    log(`WebGPU: ${gpu.adapter}; tiny Qwen3 (L=${TINY.numLayers}, C=${TINY.hiddenSize}), f16, greedy, ${o.turns}-step budget, ≤ ${o.newTokens} tokens per reply`);

    const one = await setup(model, gpu, 1, o);
    let result: Omit<EpisodesBenchResult, 'evaluate' | 'batchedOverOne'>;
    let evalOne: EvaluateTiming;
    let serial: { timing: EvaluateTiming; records: EpisodeRecord[] };
    try {
      await demoEpisode(one, dataset, executor, { ...o, turns: 1, newTokens: 1 }, true); // warm-up: pipelines
      const full = await demoEpisode(one, dataset, executor, o, true);
      const reuse = await demoEpisode(one, dataset, executor, o, false);
      if (JSON.stringify(full.tokens) !== JSON.stringify(reuse.tokens)) throw new Error('KV reuse changed the tokens of the demo episode');
      log(`prefill tokens by turn: full re-prefill ${full.prefill.join(', ')} (Σ ${sum(full.prefill)}, ${full.seconds.toFixed(1)} s); reuse ${reuse.prefill.join(', ')} (Σ ${sum(reuse.prefill)}, ${reuse.seconds.toFixed(1)} s)`);
      result = {
        prefillTokensByTurn: reuse.prefill,
        prefillTokensByTurnFullReprefill: full.prefill,
        episodeSeconds: { reuse: reuse.seconds, fullReprefill: full.seconds },
        gpu: gpu.adapter,
      };
      if (o.episodes === 0) return { ...result, evaluate: null, batchedOverOne: null };
      evalOne = (await timedEvaluate(one, dataset, executor, o, 1, 1)).timing;
      serial = await timedEvaluate(one, dataset, executor, o, o.episodes, 1);
    } finally {
      one.close();
    }
    const many = await setup(model, gpu, o.episodes, o);
    let batched: { timing: EvaluateTiming; records: EpisodeRecord[] };
    try {
      await demoEpisode(many, dataset, executor, { ...o, turns: 1, newTokens: 1 }, true); // warm-up at this B
      batched = await timedEvaluate(many, dataset, executor, o, o.episodes, o.episodes);
    } finally {
      many.close();
    }
    if (JSON.stringify(batched.records.map(untimed)) !== JSON.stringify(serial.records.map(untimed))) throw new Error('batched Evaluate records differ from one at a time');
    const line = (t: EvaluateTiming) => `${t.episodes} episode(s) at B = ${t.batch}: ${t.seconds.toFixed(1)} s, ${t.engineSteps} engine steps, mean batch ${t.meanBatch.toFixed(2)}, prefill ${t.prefillTokens} of ${t.promptTokens} prompt tokens`;
    log(`Evaluate: ${line(evalOne)}; ${line(batched.timing)}; ${line(serial.timing)}`);
    const batchedOverOne = batched.timing.seconds / evalOne.seconds;
    log(`${o.episodes} episodes at B = ${o.episodes} over 1 episode: ${batchedOverOne.toFixed(2)}× the wall time (1 at a time: ${(serial.timing.seconds / evalOne.seconds).toFixed(2)}×); same records at both B`);
    return { ...result, evaluate: { one: evalOne, batched: batched.timing, serial: serial.timing }, batchedOverOne };
  } finally {
    gpu.ctx.destroy();
    await executor.close();
    await rm(root, { recursive: true, force: true });
  }
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({ options: { turns: { type: 'string' }, 'new-tokens': { type: 'string' }, episodes: { type: 'string' }, json: { type: 'boolean' } } });
  const int = (v: string | undefined, d: number, name: string) => {
    const n = v === undefined ? d : Number(v);
    if (!Number.isInteger(n) || n < 1 || n > 64) throw new RangeError(`--${name} takes an integer in 1..64, not '${v}'`);
    return n;
  };
  const result = await runEpisodesBench({ turns: int(values.turns, 5, 'turns'), newTokens: int(values['new-tokens'], 8, 'new-tokens'), episodes: int(values.episodes, 8, 'episodes') });
  if (values.json) console.log(JSON.stringify(result));
}
