#!/usr/bin/env node
// The `sqlenv` command: runs the TypeScript CLI through tsx, so `npx sqlenv …` needs no build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
