/**
 * `npm run train:toy`: the toy learning run (src/train/toy-run.ts — the task of the learning tests) on the WebGPU
 * model in headless Chromium, printing one JSON line per step and a summary line.
 *
 *   tsx scripts/train-toy.ts [--seed S] [--steps N] [--lr X] [--algo grpo|sft]
 *
 * Defaults are the learning test's: GRPO 30 steps at lr 0.02 (SFT: 30 steps at lr 0.01), seed 0. The seed is the run's
 * (prompt order, sampling); the base model and the adapter's init are the toy's. The page (scripts/train-toy/page.ts,
 * bundled by e2e/model/bundle.ts) is served from 127.0.0.1 (e2e/model/serve.ts) to Debian's Chromium with
 * `--enable-unsafe-webgpu` (SwiftShader where there is no GPU: about 2–4 s per GRPO step there).
 *
 * Output, one JSON object per line:
 *   {"step": 1, "reward": 0.06, "loss": -0.03, "tokens": 779, "seconds": 12.6, "rollout": 5.7, "update": 6.9}   (GRPO: mean reward)
 *   {"step": 1, "loss": 4.2, "tokens": 168, "seconds": 3.8, "rollout": 0, "update": 3.8}                        (SFT: mean NLL per assistant token)
 *   {"summary": {"algo", "steps", "measure", "before", "after", "seconds", "adapter"}}  (fresh mean reward or held-back NLL)
 * Bad flags exit 2 with the usage line.
 *
 * `--task reads` runs the task that must be read instead (src/train/toy-reads-run.ts: SFT warm-up, then GRPO under
 * the default reward weights, measured on fresh databases) on the float64 CPU reference in this process; `--seed`
 * draws its databases, `--steps`/`--lr` are GRPO's. Its output is described in scripts/train-toy/reads.ts.
 */
import { parseCliArgs, runCli, UsageError, withChromium } from '../e2e/model/serve.ts';
import type { StepMetrics, TrainAlgo } from '../src/train/types.ts';
import type { TrainToyOptions } from './train-toy/page.ts';
import { trainReads } from './train-toy/reads.ts';

const USAGE = 'usage: npm run train:toy -- [--task toy|reads] [--seed S] [--steps N] [--lr X] [--algo grpo|sft]';
const ALGOS: readonly TrainAlgo[] = ['grpo', 'sft'];
const TASKS = ['toy', 'reads'] as const;
type Task = (typeof TASKS)[number];

function parseArgs(argv: readonly string[]): TrainToyOptions & { task: Task } {
  const a = parseCliArgs(argv, USAGE);
  const task = a.string('task') ?? 'toy';
  if (!TASKS.includes(task as Task)) throw new UsageError(`--task must be one of ${TASKS.join('|')}, not '${task}'`);
  const algo = a.string('algo') ?? 'grpo';
  if (!ALGOS.includes(algo as TrainAlgo)) throw new UsageError(`--algo must be one of ${ALGOS.join('|')}, not '${algo}'`);
  const seedText = a.string('seed') ?? '0';
  if (!/^\d+$/.test(seedText) || Number(seedText) > 0xffffffff) throw new UsageError(`--seed must be an integer in 0..4294967295, not '${seedText}'`);
  const steps = a.int('steps') ?? null;
  const lrText = a.string('lr');
  const lr = lrText === undefined ? null : Number(lrText);
  if (lr !== null && (lrText!.trim() === '' || !Number.isFinite(lr) || lr < 0)) throw new UsageError(`--lr must be a number >= 0, not '${lrText}'`);
  a.done();
  if (task === 'reads' && algo !== 'grpo') throw new UsageError('--task reads runs SFT warm-up then GRPO: leave --algo out');
  return { task: task as Task, algo: algo as TrainAlgo, seed: Number(seedText), steps, lr };
}

/** The per-step line: the step's mean reward (GRPO) or loss, its tokens and seconds. */
function stepLine(m: StepMetrics): string {
  const measure = m.algo === 'grpo' ? { reward: m.reward.total, loss: m.loss } : { loss: m.loss };
  const s = (x: number) => Number(x.toFixed(3));
  return JSON.stringify({ step: m.step, ...measure, tokens: m.tokens, seconds: s(m.seconds.total), rollout: s(m.seconds.rollout), update: s(m.seconds.update) });
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  if (options.task === 'reads') return trainReads(options);
  const summary = await withChromium('scripts/train-toy/page.ts', 'train-toy', {}, async (page) => {
    await page.exposeFunction('reportStep', (m: StepMetrics) => console.log(stepLine(m)));
    return page.evaluate((o) => window.trainToy!.run(o), options);
  });
  if ('error' in summary) throw new Error(`train:toy on WebGPU: ${summary.error.name}: ${summary.error.message}`);
  console.log(JSON.stringify({ summary }));
}

runCli(main, USAGE);
