/**
 * `sqlenv train`'s settings (src/cli/train-flags.ts) and messages (src/cli/train-command.ts), in process (no model is
 * read): the CLI refuses what the Train view refuses — the issue's four cases (`--adam-beta2 1`, `--lora-alpha 0`,
 * `--adam-eps 0`, `--seed -3`) each as a usage error naming the flag, its value and the rule — and `--help` lists
 * every setting once with a description, GRPO-only and SFT-only settings marked with their own algorithm's default,
 * and SFT's step line says whose success rate it reports. Expected texts are written here by hand.
 */
import { describe, expect, it, vi } from 'vitest';
import { UsageError } from '../../src/cli/args.ts';
import { stepLine, trainCommand } from '../../src/cli/train-command.ts';
import { buildTrainConfig, trainConfigOverrides, trainFlagsHelp } from '../../src/cli/train-flags.ts';
import { DEFAULT_TRAIN_CONFIG, type StepMetrics } from '../../src/train/types.ts';

function refusal(argv: string[]): string {
  const values: Record<string, string> = {};
  for (let i = 0; i < argv.length; i += 2) values[argv[i].slice(2)] = argv[i + 1];
  try {
    buildTrainConfig('grpo', trainConfigOverrides(values));
  } catch (e) {
    expect(e).toBeInstanceOf(UsageError);
    return (e as Error).message;
  }
  throw new Error(`${argv.join(' ')} was accepted`);
}

describe('sqlenv train refuses what the Train view refuses', () => {
  it.each([
    [['--adam-beta2', '1'], /^--adam-beta2 1: Adam β2 must be in \[0, 1\), got 1\.$/],
    [['--lora-alpha', '0'], /^--lora-alpha 0: LoRA alpha must be > 0\b/],
    [['--adam-eps', '0'], /^--adam-eps 0: Adam ε must be > 0\b/],
    [['--seed', '-3'], /^--seed -3: Seed must be a whole number ≥ 0, got -3\.$/],
    [['--seed', '2.5'], /^--seed 2.5: Seed must be a whole number ≥ 0/],
    [['--reward-weights', '1,-1,1'], /^--reward-weights 1,-1,1: Progress weight must be a finite number ≥ 0/],
    [['--reward-weights', '0.1,1,1'], /^--reward-weights 0.1,1,1: Correctness weight: .*Raise the correctness weight/],
    [['--group-size', '1'], /^--group-size 1: Episodes per prompt \(G\) must be at least 2 for GRPO/],
    [['--lr-schedule', 'cosine'], /^--lr-schedule must be constant or linear, got 'cosine'\.$/],
    [['--loss-type', 'grpo'], /^--loss-type must be dapo or dr_grpo, got 'grpo'\.$/],
  ])('%j', (argv, message) => {
    expect(refusal(argv)).toMatch(message);
  });

  it('refuses from the command line itself (exit-2 usage error) before reading any model', async () => {
    // --seed=-3: a value starting with '-' must be attached (parseArgs reads `--seed -3` as two options).
    await expect(trainCommand(['--algo', 'grpo', '--model', '/nonexistent-model', '--dataset', 'demo', '--out', '/nonexistent-out', '--seed=-3'])).rejects.toThrow(
      /--seed -3: Seed must be a whole number ≥ 0/,
    );
    await expect(trainCommand(['--algo', 'sft', '--model', '/nonexistent-model', '--dataset', 'demo', '--out', '/nonexistent-out', '--adam-beta2', '1'])).rejects.toBeInstanceOf(UsageError);
  });

  it('accepts the edges the view accepts and fills the rest from the algorithm’s defaults', () => {
    const c = buildTrainConfig('sft', trainConfigOverrides({ 'adam-beta2': '0.999', seed: '0', 'lora-alpha': '0.5', 'group-size': '1' }));
    expect(c).toMatchObject({ algo: 'sft', adamBeta2: 0.999, seed: 0, loraAlpha: 0.5, groupSize: 1, steps: 50, lr: 2e-4 });
  });

  it('reads each choice setting by its values', () => {
    expect(buildTrainConfig('grpo', trainConfigOverrides({ 'lr-schedule': 'linear', 'loss-type': 'dr_grpo' }))).toMatchObject({ lrSchedule: 'linear', lossType: 'dr_grpo' });
    expect(buildTrainConfig('sft', trainConfigOverrides({}))).toMatchObject({ lrSchedule: 'constant' });
  });
});

describe('sqlenv train --help', () => {
  const help = trainFlagsHelp();
  const lineOf = (flag: string): string => {
    const lines = help.split('\n').filter((l) => l.trimStart().startsWith(`${flag} `));
    expect(lines, flag).toHaveLength(1);
    return lines[0];
  };

  it('lists every setting once, each with a description', () => {
    const fields = Object.keys(DEFAULT_TRAIN_CONFIG).filter((k) => k !== 'algo');
    expect(fields).toHaveLength(35);
    for (const field of fields) {
      const flag = `--${field.replace(/[A-Z]/g, (m) => `-${m.toLowerCase()}`)}`;
      // The flag, its value's form, then at least a few words before the defaults in brackets.
      expect(lineOf(flag), flag).toMatch(/^ {2}--[a-z0-9-]+ \S+ +\S+ \S+ \S+.*\(.*default.*\)$/);
    }
  });

  it('describes settings in words a newcomer reads', () => {
    expect(lineOf('--adam-beta2')).toContain('decay rate of the squared gradient’s running mean');
    expect(lineOf('--lora-alpha')).toContain('alpha / rank');
    expect(lineOf('--seed')).toContain('same seed and settings give the same run');
  });

  it('marks GRPO-only settings and shows GRPO’s default for them, never an SFT one', () => {
    expect(lineOf('--group-size')).toMatch(/\(GRPO only; default 4\)$/);
    expect(lineOf('--clip-eps-high')).toMatch(/\(GRPO only; default 0\.28\)$/);
    expect(lineOf('--std-scaling')).toMatch(/\(GRPO only; default true\)$/);
    expect(lineOf('--loss-type')).toMatch(/^ {2}--loss-type dapo\|dr_grpo +What divides the loss.*\(GRPO only; default dapo\)$/);
    expect(lineOf('--lr-schedule')).toMatch(/^ {2}--lr-schedule constant\|linear +After the warm-up.*\(default constant\)$/);
    expect(lineOf('--sft-examples-per-step')).toMatch(/\(SFT only; default 4\)$/);
    for (const line of help.split('\n').filter((l) => l.includes('GRPO only'))) expect(line).not.toMatch(/\bsft\b/);
  });

  it('shows both defaults where the algorithms differ and one where they agree', () => {
    expect(lineOf('--steps')).toMatch(/\(default sft 50, grpo 200\)$/);
    expect(lineOf('--lr')).toMatch(/\(default sft 0\.0002, grpo 0\.00005\)$/);
    expect(lineOf('--adam-beta1')).toMatch(/\(default 0\.9\)$/);
    expect(lineOf('--checkpoint-every')).toMatch(/\(default 25, at most --steps\)$/);
  });

  it('is printed by `sqlenv train --help` with the output note on SFT’s success rate', async () => {
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      await expect(trainCommand(['--help'])).resolves.toBe(0);
      const text = out.mock.calls.map((c) => String(c[0])).join('');
      expect(text).toContain('--group-size N');
      expect(text).toMatch(/under SFT, successRate and reward are the Oracle demonstrations'/);
    } finally {
      out.mockRestore();
    }
  });
});

describe('train’s step lines', () => {
  const metrics = (algo: 'sft' | 'grpo'): StepMetrics => ({
    step: 3,
    algo,
    reward: { correctness: 1, progress: 0, operational: -0.03, total: 0.97 },
    loss: 1.25,
    successRate: algo === 'sft' ? 1 : 0.25,
    tokens: 900,
    generatedTokens: 70,
    tokensPerSecond: 45,
    seconds: { rollout: 0, update: 20, total: 20 },
    etaSeconds: 940,
    gpuBytes: null,
    gradNorm: 0.5,
    lr: 2e-4,
    microBatches: 1,
  });

  it('labels SFT’s success rate as the demonstrations’, not the model’s', () => {
    const line = stepLine(metrics('sft'));
    expect(line).toMatch(/^step 3 \(sft\): loss 1\.2500/);
    expect(line).toContain("demonstrations' success rate 1.000 (the Oracle transcripts it learns from, not the model's)");
  });

  it('labels GRPO’s success rate as the model’s over the step’s episodes', () => {
    const line = stepLine(metrics('grpo'));
    expect(line).toContain("the model's success rate 0.250 over the step's episodes");
    expect(line).not.toContain('demonstrations');
  });
});
