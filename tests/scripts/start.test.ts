/**
 * `npm start -- --port N` / `PORT=N npm start` (scripts/start.mjs): the port and host from the arguments and the
 * environment, and a bad port refused with a clear message and exit code 2 before anything is built.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parsePort, startOptions, StartUsageError } from '../../scripts/start.mjs';

const START = fileURLToPath(new URL('../../scripts/start.mjs', import.meta.url));

describe('startOptions', () => {
  it('defaults to 127.0.0.1:5173, which Vite may move off when busy, and builds first', () => {
    expect(startOptions([], {})).toEqual({ port: 5173, strictPort: false, host: '127.0.0.1', build: true });
    expect(startOptions([], { PORT: '' })).toEqual({ port: 5173, strictPort: false, host: '127.0.0.1', build: true });
  });

  it('takes --port (either spelling) over PORT, PORT over the default, and holds a chosen port strictly', () => {
    expect(startOptions(['--port', '8080'], {})).toMatchObject({ port: 8080, strictPort: true });
    expect(startOptions(['--port=4185'], { PORT: '9000' })).toMatchObject({ port: 4185, strictPort: true });
    expect(startOptions([], { PORT: '9000' })).toMatchObject({ port: 9000, strictPort: true });
    expect(startOptions(['--host', '0.0.0.0', '--no-build'], {})).toMatchObject({ host: '0.0.0.0', build: false });
  });

  it.each([
    [['--port', '0'], /--port must be a port number from 1 to 65535, got '0'/],
    [['--port', '65536'], /got '65536'/],
    [['--port', 'http'], /got 'http'/],
    [['--port', '80.5'], /got '80.5'/],
    [['--port', '-1'], /--port/],
    [['--port', '1e3'], /got '1e3'/],
    [['--port', '0x50'], /got '0x50'/],
    [['--prot', '80'], /Unknown option '--prot'/],
    [['8080'], /Unexpected argument '8080'/],
  ])('refuses %j', (argv, message) => {
    expect(() => startOptions(argv, {})).toThrow(StartUsageError);
    expect(() => startOptions(argv, {})).toThrow(message);
  });

  it('names PORT when the environment holds the bad value', () => {
    expect(() => startOptions([], { PORT: 'abc' })).toThrow(/PORT must be a port number from 1 to 65535, got 'abc'/);
  });

  it('reads the edges of the range', () => {
    expect(parsePort('1', '--port')).toBe(1);
    expect(parsePort(' 65535 ', '--port')).toBe(65535);
  });
});

describe('scripts/start.mjs', () => {
  it('exits 2 with the message and its usage on a bad port, before building anything', () => {
    const run = spawnSync(process.execPath, [START, '--port', '70000'], { encoding: 'utf8', env: { ...process.env, PORT: '' } });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/^start: --port must be a port number from 1 to 65535, got '70000'\.\nUsage: npm start -- \[--port N\]/);
    expect(run.stdout).toBe('');
  });
});
