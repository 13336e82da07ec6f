/**
 * `sqlenv serve` as a user runs it: a real child process that prints its URL on stderr, serves, and exits 0 on
 * SIGTERM and SIGINT; bad flags exit 2 with a message.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SqlEnvClient } from '../../src/server/client.ts';

const BIN = fileURLToPath(new URL('../../bin/sqlenv.mjs', import.meta.url));

function serve(args: string[]): { child: ChildProcessWithoutNullStreams; url: Promise<string>; exit: Promise<{ code: number | null; stderr: string }> } {
  const child = spawn(process.execPath, [BIN, 'serve', ...args]);
  let stderr = '';
  const url = new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      const match = /at (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr);
      if (match) resolve(match[1]);
    });
    child.on('close', () => reject(new Error(`exited before listening: ${stderr}`)));
  });
  // A run that is expected to fail never listens; its `url` rejection is not an error of the test.
  url.catch(() => undefined);
  const exit = new Promise<{ code: number | null; stderr: string }>((resolve) => child.on('close', (code) => resolve({ code, stderr })));
  return { child, url, exit };
}

describe('sqlenv serve', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('serves on 127.0.0.1, plays an episode, and exits 0 on %s', async (signal) => {
    const run = serve(['--port', '0', '--max-sessions', '2', '--split', 'eval']);
    const url = await run.url;
    expect(await (await fetch(`${url}/health`)).json()).toEqual({ status: 'healthy' });
    const client = await SqlEnvClient.connect(url);
    const start = await client.reset({ seed: 0 });
    expect(start.observation.metadata.split).toBe('eval');
    run.child.kill(signal);
    expect((await client.closed).code).toBe(1001);
    const { code, stderr } = await run.exit;
    expect(code).toBe(0);
    expect(stderr.trim().split('\n')).toHaveLength(1);
  });

  it.each([
    [['--max-sessions', '0'], /--max-sessions must be an integer ≥ 1/],
    [['--split', 'test'], /--split must be one of/],
    [['--dataset', 'imdb'], /--dataset must be one of/],
    [['--port', 'eighty'], /--port must be an integer/],
    [['--port', '70000'], /--port must be at most 65535/],
    [['--verbose'], /Unknown option/],
    [['--allow-origin', 'evil.example'], /--allow-origin takes scheme:\/\/host/],
    [['--allow-host', 'http://box.lan'], /--allow-host takes a host name/],
    [['--token', 'short'], /--token .* at least 8 characters/],
    [['--max-connections', '0'], /--max-connections must be an integer ≥ 1/],
  ])('exits 2 on %j', async (args, message) => {
    const { code, stderr } = await serve(args).exit;
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
  });

  it.each([['--help'], ['-h']])('%s prints the usage and the security flags on stdout and exits 0', async (flag) => {
    const child = spawn(process.execPath, [BIN, 'serve', flag]);
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage: sqlenv serve /);
    for (const option of ['--allow-origin', '--allow-host', '--token', '--max-connections', 'SQLENV_TOKEN']) expect(stdout).toContain(option);
  });
});
