// Node module hooks for `?raw` imports (`import source from './matmul.wgsl?raw'`): the file's text as the default
// export, exactly as Vite gives it in the page and in Vitest, so the WGSL sources load the same way in the CLI,
// the benchmarks and the scripts. Registered by bin/register-raw.mjs; chained after tsx's own hooks.
import { readFile } from 'node:fs/promises';

const RAW = '?raw';

export async function resolve(specifier, context, nextResolve) {
  if (!specifier.endsWith(RAW)) return nextResolve(specifier, context);
  const resolved = await nextResolve(specifier.slice(0, -RAW.length), context);
  return { ...resolved, url: `${resolved.url}${RAW}`, format: 'module', shortCircuit: true };
}

export async function load(url, context, nextLoad) {
  if (!url.endsWith(RAW)) return nextLoad(url, context);
  const text = await readFile(new URL(url.slice(0, -RAW.length)), 'utf8');
  return { format: 'module', source: `export default ${JSON.stringify(text)};`, shortCircuit: true };
}
