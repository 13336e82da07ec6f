/**
 * Bundles a page script (a TypeScript entry that may import src/gpu with its `?raw` WGSL) with Vite's build API, in
 * memory, exactly as e2e/gpu/harness.ts does; used by the model e2e specs and by `scripts/model-logits.ts`, which
 * serve the result on http://127.0.0.1 (a secure context: Cache Storage and WebGPU need one).
 */
import { build, type Rolldown } from 'vite';

const bundles = new Map<string, Promise<string>>();

async function buildPage(entry: string): Promise<string> {
  const output = await build({
    configFile: false,
    logLevel: 'warn',
    root: process.cwd(),
    build: { write: false, minify: false, emptyOutDir: false, lib: { entry, formats: ['es'], fileName: 'page' } },
  });
  const outputs = (Array.isArray(output) ? output : [output]) as Rolldown.RolldownOutput[];
  const chunk = outputs.flatMap((o) => o.output).find((item) => item.type === 'chunk' && item.isEntry);
  if (!chunk || chunk.type !== 'chunk') throw new Error(`bundle ${entry}: the Vite build produced no entry chunk`);
  return chunk.code;
}

/** The bundled code of `entry` (a path from the repository root), built once per process. */
export function pageBundle(entry: string): Promise<string> {
  let b = bundles.get(entry);
  if (!b) {
    b = buildPage(entry);
    bundles.set(entry, b);
  }
  return b;
}

export const PAGE_ENTRY = 'e2e/model/page.ts';

/** The HTML that loads `./page.js` and waits for it to set the title to `model-page ready`. */
export const PAGE_HTML = '<!doctype html><meta charset="utf-8"><title>model-page</title><script type="module" src="./page.js"></script>';
