/**
 * The model commands' flags: each bad flag exits 2 with a message naming it, before any model is read or any GPU
 * is touched (so these run fast); a resume with nothing to resume exits 1; `train --help` lists the settings.
 * The argument errors run main() in this process (sqlenvInProcess: a child process costs ~1.3 s each to start tsx);
 * the resume case runs `sqlenv` as a child process, so the exit code reaching the shell stays checked here too.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlenv, sqlenvInProcess } from './model-fixture.ts';

let root = '';
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'sqlenv-usage-'));
  await mkdir(join(root, 'run', 'checkpoints'), { recursive: true });
  await writeFile(join(root, 'run', 'checkpoints', 'run-x@1.json'), JSON.stringify({ id: 'run-x@1', runId: 'run-x', step: 1, totalSteps: 2, dataset: 'demo', savedAt: 0 }));
  await mkdir(join(root, 'empty'));
});
afterAll(() => rm(root, { recursive: true, force: true }));

describe('model commands refuse bad flags with exit code 2', () => {
  it.each([
    [['logits'], /--model DIR is required/],
    [['logits', '--model', 'm'], /exactly one of --ids/],
    [['logits', '--model', 'm', '--ids', '1,2', '--text', 'hi'], /exactly one of --ids/],
    [['logits', '--model', 'm', '--ids', '1,a'], /--ids must be comma-separated token ids/],
    [['logits', '--model', 'm', '--ids', '1', '--quant', 'q3'], /--quant must be one of f16\|q8\|q4/],
    [['logits', '--model', 'm', '--ids', '1', '--top', '0'], /--top must be an integer ≥ 1/],
    [['eval', '--policy', 'qwen'], /--policy qwen needs --model DIR/],
    [['eval', '--policy', 'oracle', '--model', 'm'], /--model applies to --policy qwen only/],
    [['eval', '--policy', 'qwen', '--model', 'm', '--shots', '2'], /--shots must be one of 0\|1\|3/],
    [['eval', '--policy', 'qwen', '--model', 'm', '--temperature', '3'], /'temperature' must be from 0/],
    [['eval', '--policy', 'qwen', '--model', 'm', '--top-p', 'x'], /--top-p must be a number/],
    [['eval', '--policy', 'qwen', '--model', 'm', '--batch', '0'], /--batch must be an integer ≥ 1/],
    [['eval', '--policy', 'qwen', '--model', 'm', '--budget', '0'], /--budget must be an integer ≥ 1/],
    [['train', '--model', 'm'], /--out DIR is required/],
    [['train', '--model', 'm', '--out', 'o'], /--algo is required \(sft\|grpo\)/],
    [['train', '--algo', 'ppo', '--model', 'm', '--out', 'o'], /--algo must be one of sft\|grpo/],
    [['train', '--algo', 'sft', '--model', 'm', '--out', 'o'], /--dataset is required/],
    [['train', '--algo', 'grpo', '--model', 'm', '--out', 'o', '--group-size', '1'], /--group-size 1: Episodes per prompt \(G\) must be at least 2/],
    [['train', '--algo', 'sft', '--model', 'm', '--out', 'o', '--steps', '1.5'], /--steps 1.5: Steps must be a whole number > 0, got 1.5/],
    [['train', '--algo', 'sft', '--model', 'm', '--out', 'o', '--lora-targets', 'q_proj,lm_head'], /--lora-targets must be a comma-separated list/],
    [['train', '--algo', 'sft', '--model', 'm', '--out', 'o', '--std-scaling', 'yes'], /--std-scaling must be true or false/],
    [['train', '--algo', 'sft', '--model', 'm', '--out', 'o', '--reward-weights', '1,2'], /--reward-weights must be three numbers/],
    [['train', '--algo', 'sft', '--model', 'm', '--out', 'o', '--bogus', '1'], /Unknown option '--bogus'/],
    [['train', '--resume', '--model', 'm', '--out', 'o', '--lr', '0.1'], /--lr cannot change when resuming/],
    [['train', '--resume', '--model', 'm', '--out', 'o', '--init-adapter', 'a'], /--init-adapter starts a new run/],
  ])('%j', async (args, message) => {
    const run = await sqlenvInProcess(args);
    expect(run.stderr).toMatch(message);
    expect(run.code).toBe(2);
  }, 60_000);

  it('refuses to start a new run in a folder that holds one', async () => {
    const run = await sqlenvInProcess(['train', '--algo', 'sft', '--model', 'm', '--dataset', 'demo', '--out', join(root, 'run')]);
    expect(run.stderr).toMatch(/already holds a run .*--resume/);
    expect(run.code).toBe(2);
  }, 60_000);

  it('exits 1 when --resume finds no checkpoint', async () => {
    const run = await sqlenv(['train', '--resume', '--model', 'm', '--out', join(root, 'empty')]);
    expect(run.stderr).toMatch(/No checkpoint in .* to resume from/);
    expect(run.code).toBe(1);
  }, 60_000);

  it('lists the Train view settings with --help and the commands in the usage', async () => {
    const help = await sqlenvInProcess(['train', '--help']);
    expect(help.code).toBe(0);
    for (const flag of ['--group-size', '--max-new-tokens-per-turn', '--lora-targets', '--checkpoint-every', '--adam-beta1']) expect(help.stdout).toContain(flag);
    const usage = await sqlenvInProcess(['--help']);
    expect(usage.stdout).toMatch(/sqlenv logits --model DIR/);
    expect(usage.stdout).toMatch(/sqlenv train --algo sft\|grpo/);
    expect(usage.stdout).toMatch(/--policy random\|oracle\|qwen/);
  }, 60_000);
});
