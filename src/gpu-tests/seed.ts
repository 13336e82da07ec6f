/**
 * The seed of a GPU check run. Each run draws a fresh one (so the tolerances are tested on new inputs, weights and
 * prompts every time, not tuned to one draw), prints it, and `GPU_CHECK_SEED=<n>` replays it exactly: the Node suite
 * (tests/gpu/checks-node*.test.ts) and the Playwright specs (e2e/gpu/harness.ts) both read it through `runSeed`.
 *
 * Range: 1 … 2^31 − 1. Checks derive further seeds by small offsets (`seed + 7`) and pass them to the GPU sampler as
 * u32 keys (src/gpu/kernels/sample-rng.ts); below 2^31 those stay exact u32 values on both sides.
 */

export const SEED_ENV = 'GPU_CHECK_SEED';
export const MAX_SEED = 2 ** 31 - 1;

export class CheckSeedError extends Error {
  constructor(readonly value: string) {
    super(`${SEED_ENV}='${value}' is not a seed: give an integer from 1 to ${MAX_SEED} (the seed a failing run printed)`);
    this.name = 'CheckSeedError';
  }
}

export interface RunSeed {
  seed: number;
  /** 'env' when GPU_CHECK_SEED gave it, 'drawn' when it was drawn for this run. */
  source: 'env' | 'drawn';
}

/** A fresh seed in 1 … MAX_SEED from the platform's cryptographic generator (Node and browsers alike). */
export function drawSeed(): number {
  const word = new Uint32Array(1);
  globalThis.crypto.getRandomValues(word);
  return (word[0] % MAX_SEED) + 1;
}

/** Parses a GPU_CHECK_SEED value; throws CheckSeedError unless it is an integer in 1 … MAX_SEED. */
export function parseSeed(value: string): number {
  const text = value.trim();
  if (!/^\d+$/.test(text)) throw new CheckSeedError(value);
  const seed = Number(text);
  if (seed < 1 || seed > MAX_SEED) throw new CheckSeedError(value);
  return seed;
}

/** The run's seed: GPU_CHECK_SEED when set (non-empty), else a fresh draw. */
export function runSeed(env: Readonly<Record<string, string | undefined>>): RunSeed {
  const value = env[SEED_ENV];
  return value !== undefined && value.trim() !== '' ? { seed: parseSeed(value), source: 'env' } : { seed: drawSeed(), source: 'drawn' };
}

/** How a run announces its seed, with the command line that replays it. */
export function describeSeed({ seed, source }: RunSeed, replay: string): string {
  return `GPU check seed ${seed} (${source === 'env' ? `from ${SEED_ENV}` : 'drawn for this run'}); replay: ${SEED_ENV}=${seed} ${replay}`;
}
