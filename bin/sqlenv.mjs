#!/usr/bin/env node
// The `sqlenv` command: runs the TypeScript CLI through tsx, so `npx sqlenv …` needs no build step. WGSL sources
// come in as `?raw` imports (bin/raw-import-hooks.mjs), as in Vite.
import { register } from 'tsx/esm/api';

register();
await import('./register-raw.mjs');
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
