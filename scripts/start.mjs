#!/usr/bin/env node
// `npm start` (build, then serve the built app) and `npm run preview` (serve the last build) on a port of your
// choice: `npm start -- --port 8080`, `PORT=8080 npm start`, default 5173. The arguments are checked before the
// build starts, so a bad port costs nothing. A port you name is held strictly (Vite's `--strictPort`: a busy port
// is an error, never a silent move to the next one); the default 5173 may move on when busy, as Vite does.
//
//   node scripts/start.mjs [--port N] [--host H] [--no-build]
//
// Plain JavaScript so that `npm start` needs nothing compiled first; types in start.d.mts for the tests.
import { spawn } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

export const DEFAULT_PORT = 5173;
export const DEFAULT_HOST = '127.0.0.1';

export class StartUsageError extends Error {
  constructor(message) {
    super(message);
    this.name = 'StartUsageError';
  }
}

/**
 * A port as the user wrote it: a whole number 1–65535, digits only (no sign, exponent or hex), else a
 * StartUsageError naming where it came from.
 * @param {string} text
 * @param {string} source `--port` or `PORT`
 * @returns {number}
 */
export function parsePort(text, source) {
  const trimmed = text.trim();
  const port = /^[0-9]{1,5}$/.test(trimmed) ? Number(trimmed) : NaN;
  if (!(port >= 1 && port <= 65535)) throw new StartUsageError(`${source} must be a port number from 1 to 65535, got '${text}'.`);
  return port;
}

/**
 * The start options from the command line and the environment: `--port` wins over `PORT`, which wins over 5173.
 * @param {string[]} argv
 * @param {Record<string, string | undefined>} env
 * @returns {{ port: number, strictPort: boolean, host: string, build: boolean }}
 */
export function startOptions(argv, env) {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { port: { type: 'string' }, host: { type: 'string' }, 'no-build': { type: 'boolean', default: false } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (e) {
    throw new StartUsageError(e instanceof Error ? e.message : String(e));
  }
  const chosen = values.port !== undefined ? parsePort(values.port, '--port') : env.PORT !== undefined && env.PORT !== '' ? parsePort(env.PORT, 'PORT') : null;
  if (values.host !== undefined && values.host.trim() === '') throw new StartUsageError('--host must not be empty.');
  return { port: chosen ?? DEFAULT_PORT, strictPort: chosen !== null, host: values.host ?? DEFAULT_HOST, build: !values['no-build'] };
}

/** Runs a command with the terminal attached; resolves with its exit code (1 when it died by a signal). */
function run(command, args, root) {
  return new Promise((resolveCode) => {
    const child = spawn(command, args, { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
    child.on('error', (error) => {
      process.stderr.write(`start: could not run ${command}: ${error.message}\n`);
      resolveCode(1);
    });
    child.on('exit', (code) => resolveCode(code ?? 1));
  });
}

async function main() {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  let options;
  try {
    options = startOptions(process.argv.slice(2), process.env);
  } catch (e) {
    if (!(e instanceof StartUsageError)) throw e;
    process.stderr.write(`start: ${e.message}\nUsage: npm start -- [--port N] [--host H] [--no-build]   (or PORT=N npm start; default port ${DEFAULT_PORT})\n`);
    return 2;
  }
  if (options.build) {
    const built = await run('npm', ['run', 'build'], root);
    if (built !== 0) return built;
  }
  const vite = join(root, 'node_modules', 'vite', 'bin', 'vite.js');
  const args = [vite, 'preview', '--host', options.host, '--port', String(options.port), ...(options.strictPort ? ['--strictPort'] : [])];
  return run(process.execPath, args, root);
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.exitCode = await main();
}
