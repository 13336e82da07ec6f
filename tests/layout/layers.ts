/**
 * The layering of `src/` as a table (STYLE.md, "Dependencies point one way"; docs/layout.md lists what each folder
 * holds): for each layer — a folder under `src/`, or `main` for `src/main.tsx` — the layers it may import. Anything
 * not listed is refused, so a new folder must be placed here before it can be used.
 *
 * How to read it: `sql`, `data`, `util` and `gpu` are leaves; `env` builds on `sql` and `data`; `model` on `gpu`
 * (and `data`'s seeded generator); `policies` on `model` and `env`; `train` on `policies`; `eval` on those (its TRL
 * export reuses the trainer's chat sequence); `workers` host eval and training; `server` sits apart from the GPU
 * (never `gpu`, `model`, `train`, `workers`); `ui` reaches everything but `server` and `cli`; `cli` reaches all but
 * `ui`. Same-rank layers (`sql`/`gpu`, `env`/`model`, `workers`/`server`) may not import each other.
 *
 * ESLint's `no-restricted-imports` blocks (eslint.config.js) hold part of this line at edit time; this table is the
 * whole rule, checked on the resolved graph by tests/layout/import-graph.test.ts.
 */
export const MAY_IMPORT: Readonly<Record<string, readonly string[]>> = {
  util: [],
  sql: ['util'],
  gpu: ['util'],
  data: ['sql', 'util'],
  env: ['data', 'sql', 'util'],
  model: ['gpu', 'data', 'util'],
  policies: ['env', 'model', 'gpu', 'data', 'sql', 'util'],
  train: ['policies', 'env', 'model', 'gpu', 'data', 'sql', 'util'],
  eval: ['train', 'policies', 'env', 'model', 'data', 'sql', 'util'],
  workers: ['eval', 'train', 'policies', 'env', 'model', 'gpu', 'data', 'sql', 'util'],
  server: ['eval', 'policies', 'env', 'data', 'sql', 'util'],
  ui: ['workers', 'eval', 'train', 'policies', 'env', 'model', 'gpu', 'data', 'sql', 'util'],
  cli: ['server', 'workers', 'eval', 'train', 'policies', 'env', 'model', 'gpu', 'data', 'sql', 'util'],
  /** The GPU checks (in Chromium and in Node on Dawn) drive the engine, the model and the trainer. */
  'gpu-tests': ['workers', 'train', 'model', 'gpu', 'data', 'sql', 'util'],
  main: ['ui'],
};

/**
 * Edges the table refuses but the design wants, each with its reason. `from` is a file or a folder (ending in `/`),
 * `to` a file, both relative to the root. A `new Worker(new URL(…))` is listed here too: it is a dependency on a
 * file's path, not an import.
 */
export const LAYER_EXCEPTIONS: ReadonlyArray<{ from: string; to: string; why: string }> = [
  {
    from: 'src/sql/browser-worker.ts',
    to: 'src/workers/sql.worker.browser.ts',
    why: 'the killable SQL executor starts its own worker entry, which lives with the other worker entries; it imports nothing from src/workers',
  },
  {
    from: 'src/gpu/',
    to: 'src/model/weights.ts',
    why: "the seven projection names and their shapes are spelled once, in the model's weight table (issue 28), which imports nothing at runtime",
  },
  {
    from: 'src/gpu/',
    to: 'src/model/config.ts',
    why: 'the memory plan sizes buffers from the model config (its dimensions); config.ts imports nothing',
  },
];

/** Whether `from → to` is one of the listed exceptions. */
export function isLayerException(from: string, to: string): boolean {
  return LAYER_EXCEPTIONS.some((x) => x.to === to && (x.from.endsWith('/') ? from.startsWith(x.from) : from === x.from));
}

/** Layers that may import React (STYLE.md: only `ui` imports React; `main` mounts it). */
export const REACT_LAYERS: readonly string[] = ['ui', 'main'];

/** The layer of a file relative to the root: `src/env/rewards.ts` → `env`, `src/main.tsx` → `main`. */
export function layerOf(file: string): string {
  const [, first, second] = file.split('/');
  return second === undefined ? first.replace(/\.tsx?$/, '') : first;
}
