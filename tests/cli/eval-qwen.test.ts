/**
 * `sqlenv eval --policy qwen`: a tiny random Qwen3 plays demo episodes on the Node WebGPU engine through the page's
 * LlmPolicy (its prompts, parser and tool protocol), greedy, and the run is reported like any other policy's. The
 * same command with B = 2 (both episodes' turns decoded in the same engine steps) and with B = 1 (one after the
 * other) must give the same transcripts: greedy decoding is deterministic and a sequence's tokens never depend on
 * what shares its batch. Only the timing fields of each turn may differ.
 *
 * Kept small for SwiftShader on 2 cores: 2 episodes, a step budget of 1, replies cut at 3 tokens (each prompt is
 * still ~630 tokens of system prompt and question, which dominates the time).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EpisodeRecord } from '../../src/eval/transcript.ts';
import { jsonLines, sqlenv, tinyModelFolder } from './model-fixture.ts';

let folder: Awaited<ReturnType<typeof tinyModelFolder>>;
beforeAll(async () => {
  folder = await tinyModelFolder();
});
afterAll(() => folder?.cleanup());

const ARGS = ['--policy', 'qwen', '--dataset', 'demo', '--split', 'eval', '--episodes', '2', '--seed', '3', '--budget', '1', '--max-new-tokens', '3', '--temperature', '0', '--quant', 'f16', '--json'];

/** A record without what depends on the clock (each model turn's seconds and tokens per second). */
function untimed(record: EpisodeRecord): unknown {
  return {
    ...record,
    transcript: record.transcript.map(({ generation, ...step }) => ({ ...step, generation: generation && { newTokens: generation.newTokens, cutByLimit: generation.cutByLimit, promptTokens: generation.promptTokens } })),
  };
}

async function evalRun(batch: number): Promise<{ report: Record<string, unknown>; records: EpisodeRecord[] }> {
  const transcripts = join(folder.root, `b${batch}.jsonl`);
  const run = await sqlenv(['eval', ...ARGS, '--model', folder.model, '--batch', String(batch), '--transcripts', transcripts]);
  expect(run.code, run.stderr).toBe(0);
  const [report] = jsonLines(run.stdout);
  const records = (await readFile(transcripts, 'utf8'))
    .trim()
    .split('\n')
    .slice(1) // the run file's header line (src/eval/run-file.ts)
    .map((l) => JSON.parse(l) as EpisodeRecord);
  return { report, records };
}

describe('sqlenv eval --policy qwen', () => {
  it('plays demo episodes greedily, batched, with the same transcripts as one at a time', async () => {
    const batched = await evalRun(2);
    expect(batched.report).toMatchObject({ policy: 'qwen', dataset: 'demo', split: 'eval', seed: 3, episodes: 2, mean_steps: 1 });
    expect(batched.report.generation).toMatchObject({ batch: 2, max_batch: 2, weights: 'f16', shots: 0 });
    expect(batched.records).toHaveLength(2);
    for (const r of batched.records) {
      expect(r.policy).toBe('qwen');
      expect(r.transcript).toHaveLength(1);
      const [step] = r.transcript;
      expect(step.rawText?.length).toBeGreaterThan(0);
      expect(step.generation).toMatchObject({ newTokens: 3, cutByLimit: true });
      expect(step.generation!.promptTokens).toBeGreaterThan(100);
    }
    expect(new Set(batched.records.map((r) => r.questionId)).size).toBe(2);

    const single = await evalRun(1);
    expect(single.report.generation).toMatchObject({ batch: 1, max_batch: 1 });
    expect(single.records.map(untimed)).toEqual(batched.records.map(untimed));
    const { generation: _a, ...summaryBatched } = batched.report;
    const { generation: _b, ...summarySingle } = single.report;
    expect(summarySingle).toEqual(summaryBatched);
  }, 600_000);
});
