/**
 * One verdict everywhere: for seeded random settings, the Train view (configProblem), `sqlenv train`'s flags
 * (trainConfigOverrides + buildTrainConfig, from the flags' text) and the training worker (TrainService.start)
 * accept the same settings and refuse the rest naming the same setting. Each draw starts from one algorithm's
 * defaults and changes up to four settings to values from small pools around every rule's edges, so about half the
 * draws are refused; an accepted draw must reach the CLI's config unchanged (the flags' text round-trips).
 * Seeded from SQLENV_TEST_SEED (tests/fixtures/seed.ts; printed, replayable).
 */
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/args.ts';
import { buildTrainConfig, flagName, trainConfigOverrides } from '../../src/cli/train-flags.ts';
import { createRng, pick, randomInt, type Rng } from '../../src/data/rng.ts';
import { LORA_TARGETS, type LoraTarget } from '../../src/model/lora.ts';
import { TrainConfigError } from '../../src/train/settings-check.ts';
import { NUMBER_SETTINGS } from '../../src/train/settings-table.ts';
import { DEFAULT_SFT_CONFIG, DEFAULT_TRAIN_CONFIG, type TrainConfig } from '../../src/train/types.ts';
import { configProblem } from '../../src/ui/train/config-check.ts';
import type { AdapterLibrary } from '../../src/workers/adapter-library.ts';
import { TrainService, type TrainBase } from '../../src/workers/train-service.ts';
import type { TrainStore } from '../../src/workers/train-store.ts';
import { testSeed } from '../fixtures/seed.ts';

const DRAWS = 400;
/** Values around every numeric rule's edges (0, 1, fractions, negatives, large). */
const NUMBERS = [-3, -1, -1e-9, 0, 1e-8, 0.2, 0.5, 0.99, 1, 1.5, 2, 7, 64, 2 ** 53];
const WEIGHTS = [-0.5, 0, 0.05, 0.1, 0.5, 1, 2];

type Verdict = { accepted: true } | { accepted: false; setting: string };

function randomSettings(rng: Rng): TrainConfig {
  const c: TrainConfig = structuredClone(pick(rng, [DEFAULT_TRAIN_CONFIG, DEFAULT_SFT_CONFIG]));
  const changes = randomInt(rng, 5);
  for (let i = 0; i < changes; i++) {
    switch (randomInt(rng, 6)) {
      case 0:
      case 1:
      case 2: {
        const key = pick(rng, NUMBER_SETTINGS).key;
        c[key] = pick(rng, NUMBERS);
        break;
      }
      case 3:
        c.rewardWeights = { correctness: pick(rng, WEIGHTS), progress: pick(rng, WEIGHTS), operational: pick(rng, WEIGHTS) };
        break;
      case 4:
        c.loraTargets = LORA_TARGETS.filter(() => rng.next() < 0.5);
        if (c.loraTargets.length === 0) c.loraTargets = [pick<LoraTarget>(rng, LORA_TARGETS)];
        break;
      default:
        c.stdScaling = rng.next() < 0.5;
        c.lossType = pick(rng, ['dapo', 'dr_grpo'] as const);
        break;
    }
  }
  return c;
}

/** The settings as `sqlenv train` flags' text, every setting given. */
function asFlags(c: TrainConfig): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(c) as Array<[string, TrainConfig[keyof TrainConfig]]>) {
    if (key === 'algo') continue;
    out[flagName(key)] = Array.isArray(value) ? value.join(',') : typeof value === 'object' ? `${value.correctness},${value.progress},${value.operational}` : String(value);
  }
  return out;
}

function viewVerdict(c: TrainConfig): Verdict {
  const problem = configProblem(c);
  return problem ? { accepted: false, setting: problem.field.replace(/^rewardWeights\..*/, 'rewardWeights') } : { accepted: true };
}

function cliVerdict(c: TrainConfig): { verdict: Verdict; config?: TrainConfig } {
  try {
    const config = buildTrainConfig(c.algo, trainConfigOverrides(asFlags(c)));
    return { verdict: { accepted: true }, config };
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    const flag = /^--([a-z0-9-]+) /.exec(e.message)?.[1] ?? `(no flag named in: ${e.message})`;
    // Flags are the kebab-case field names; back to the field.
    return { verdict: { accepted: false, setting: flag.replace(/-([a-z0-9])/g, (_, ch: string) => ch.toUpperCase()) } };
  }
}

class ReachedDataset extends Error {}

/** The worker's verdict: it refuses before any event, or goes on to read the dataset (where this fake stops it). */
async function workerVerdict(c: TrainConfig): Promise<Verdict> {
  const service = new TrainService({
    store: {} as TrainStore,
    adapters: {} as AdapterLibrary,
    base: () => ({ label: 'fake' }) as TrainBase,
    dataset: () => Promise.reject(new ReachedDataset()),
    createExecutor: () => {
      throw new Error('not reached');
    },
  });
  const events: unknown[] = [];
  try {
    await service.start({ dataset: 'demo', config: c }, (e) => events.push(e));
  } catch (e) {
    expect(events).toEqual([]);
    if (e instanceof ReachedDataset) return { accepted: true };
    if (e instanceof TrainConfigError && e.field !== undefined) return { accepted: false, setting: e.field.replace(/^rewardWeights\..*/, 'rewardWeights') };
    throw e;
  }
  throw new Error('The fake dataset should have stopped the run.');
}

describe('the view, the CLI and the worker judge settings alike', () => {
  // The four cases, which the CLI and the worker used to accept (the view alone refused them).
  it.each<[Partial<TrainConfig>, string]>([
    [{ adamBeta2: 1 }, 'adamBeta2'],
    [{ loraAlpha: 0 }, 'loraAlpha'],
    [{ adamEps: 0 }, 'adamEps'],
    [{ seed: -3 }, 'seed'],
  ])('all three refuse %j, naming %s', async (patch, setting) => {
    const c = { ...DEFAULT_TRAIN_CONFIG, ...patch };
    const refused: Verdict = { accepted: false, setting };
    expect(viewVerdict(c)).toEqual(refused);
    expect(cliVerdict(c).verdict).toEqual(refused);
    expect(await workerVerdict(c)).toEqual(refused);
  });

  it(`agree on ${DRAWS} seeded random settings`, async () => {
    const rng = createRng(testSeed('tests/train/settings-verdicts.test.ts'));
    let refused = 0;
    for (let i = 0; i < DRAWS; i++) {
      const c = randomSettings(rng);
      const view = viewVerdict(c);
      const cli = cliVerdict(c);
      const worker = await workerVerdict(c);
      const label = JSON.stringify(c);
      expect(cli.verdict, label).toEqual(view);
      expect(worker, label).toEqual(view);
      if (cli.config) expect(cli.config, label).toEqual(c);
      if (!view.accepted) refused++;
    }
    // Both sides of the rule are exercised (draws are about half refused; far from both ends for any seed).
    expect(refused).toBeGreaterThan(DRAWS / 10);
    expect(refused).toBeLessThan(DRAWS - DRAWS / 10);
  });
});
