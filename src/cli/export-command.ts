/**
 * `sqlenv export`: a dataset split as TRL-ready JSON Lines (src/eval/trl-export.ts), one row per question in dataset
 * order: `prompts` for GRPO with an `environment_factory` env, `sft` for SFTTrainer (Oracle demonstrations). The file
 * is written to a temporary name beside `--out` and renamed into place, so a reader never sees half a file; progress
 * and a summary (rows written, questions skipped by reason) go to stderr.
 *
 * Token limits follow the page's defaults for a 2,048-token model context: an sft demonstration has at most 2,048
 * tokens (the SFT's maxEpisodeTokens); a prompt at most 2,048 − 256 (LlmPolicy's budget with 256 new tokens a turn;
 * − 1,024 with thinking on). `--max-tokens` overrides either.
 */
import { randomBytes } from 'node:crypto';
import { access, constants, rename, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { DatasetError } from '../data/bundle.ts';
import { DATASET_NAMES, loadNodeDataset } from '../data/load-node.ts';
import { SPLITS, type SplitSelector } from '../data/types.ts';
import { SqlEnv } from '../env/env.ts';
import { buildTrlRows, TRL_FORMATS, type SkippedQuestion } from '../eval/trl-export.ts';
import { DEFAULT_CONTEXT_TOKENS } from '../model/context.ts';
import { loadTokenizerFolder, qwen3TokenizerJsonPath } from '../model/files-node.ts';
import { buildOracleShots, selectShotQuestions } from '../policies/llm/prompt.ts';
import { samplingDefaults } from '../policies/llm/sampling-defaults.ts';
import { createNodeSqlExecutor } from '../sql/node-worker.ts';
import { choice, integer, UsageError } from './args.ts';
import { createProgress } from './progress.ts';

export const EXPORT_USAGE =
  'sqlenv export --format prompts|sft --dataset demo|spider --split train|eval|heldout|all --out FILE.jsonl [--shots 0|1|3] [--thinking on|off] [--max-tokens N] [--tokenizer DIR]';


/** "3 episode-too-long, 1 oracle-failed" */
function skipSummary(skipped: readonly SkippedQuestion[]): string {
  const counts = new Map<string, number>();
  for (const s of skipped) counts.set(s.reason, (counts.get(s.reason) ?? 0) + 1);
  return [...counts].map(([reason, n]) => `${n} ${reason}`).join(', ');
}

/** Writes `text` to `path` atomically: a temporary file in the same folder, then a rename over `path`. */
async function writeAtomically(path: string, text: string): Promise<void> {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await writeFile(temp, text, { flag: 'wx' });
    await rename(temp, path);
  } catch (e) {
    await unlink(temp).catch(() => undefined);
    throw e;
  }
}

export async function exportCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      format: { type: 'string' },
      dataset: { type: 'string' },
      split: { type: 'string' },
      out: { type: 'string' },
      shots: { type: 'string' },
      thinking: { type: 'string' },
      'max-tokens': { type: 'string' },
      tokenizer: { type: 'string' },
    },
    strict: true,
    allowPositionals: false,
  });
  const format = choice('format', values.format, TRL_FORMATS);
  const datasetName = choice('dataset', values.dataset, DATASET_NAMES, 'demo');
  const split = choice<SplitSelector>('split', values.split, [...SPLITS, 'all'], 'train');
  const shots = Number(choice('shots', values.shots, ['0', '1', '3'] as const, '0'));
  const thinking = choice('thinking', values.thinking, ['on', 'off'] as const, 'off');
  // The page's model context (model/context.ts), less LlmPolicy's new-token allowance per turn for a prompt.
  const defaultMax = format === 'sft' ? DEFAULT_CONTEXT_TOKENS : DEFAULT_CONTEXT_TOKENS - samplingDefaults(thinking === 'on').maxNewTokens;
  const maxTokens = integer('max-tokens', values['max-tokens'], defaultMax, 64);
  if (!values.out) throw new UsageError('--out FILE.jsonl is required.');
  if (values.tokenizer === '') throw new UsageError('--tokenizer needs a model folder (tokenizer.json, tokenizer_config.json).');
  const out = values.out;
  const outDir = dirname(out);
  const writable = await access(outDir, constants.W_OK).then(() => true, () => false);
  if (!writable) {
    process.stderr.write(`sqlenv export: cannot write ${out}: ${outDir} is not a writable folder.\n`);
    return 1;
  }

  const tokenizer = await loadTokenizerFolder(values.tokenizer ?? dirname(qwen3TokenizerJsonPath()));
  const executor = createNodeSqlExecutor();
  try {
    const importProgress = createProgress('importing');
    const dataset = await loadNodeDataset(datasetName, executor, (d, t) => importProgress.update(d, t));
    importProgress.finish();
    const questions = dataset.questions.filter((q) => split === 'all' || q.split === split);
    if (questions.length === 0) throw new DatasetError(`${dataset.name} has no questions in split '${split}': nothing to export.`);
    const env = new SqlEnv(dataset, executor);
    try {
      const shotList = await buildOracleShots(env, selectShotQuestions(dataset, shots));
      const progress = createProgress(`export ${format}`);
      const settings = { tokenizer, shots: shotList, thinking: thinking === 'on', maxTokens };
      const { rows, skipped } = await buildTrlRows(format, env, questions, settings, (d, t) => progress.update(d, t));
      progress.finish();
      const text = rows.map((r) => `${JSON.stringify(r)}\n`).join('');
      await writeAtomically(out, text);
      const bytes = Buffer.byteLength(text);
      process.stderr.write(
        `wrote ${rows.length} ${format} rows (${dataset.name}/${split}, ${shots}-shot, thinking ${thinking}, ≤ ${maxTokens} tokens) to ${out} (${bytes} bytes); ` +
          `skipped ${skipped.length}${skipped.length > 0 ? `: ${skipSummary(skipped)}` : ''}\n`,
      );
      for (const s of skipped) process.stderr.write(`  skipped ${s.questionId}: ${s.reason} (${s.detail})\n`);
      return 0;
    } finally {
      env.close();
    }
  } finally {
    await executor.close();
  }
}
