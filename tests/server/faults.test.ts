/**
 * Sessions that misbehave — oversized messages, runaway queries, sockets closed mid-query, too many connections,
 * silence — are answered or cleaned up while the server stays up and a concurrent Oracle session finishes with the
 * in-process return.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Question } from '../../src/data/types.ts';
import { runEpisode } from '../../src/eval/episode.ts';
import { OraclePolicy } from '../../src/policies/oracle.ts';
import { playPolicy, ServerReplyError, SqlEnvClient } from '../../src/server/client.ts';
import type { RunningServer } from '../../src/server/server.ts';
import { eventually, questionsById, referenceEnv, RUNAWAY_SQL, startServer } from './harness.ts';

let questions: Map<string, Question>;
let oracleReturns: Map<number, number>;
const SEEDS = [21, 22, 23];

beforeAll(async () => {
  questions = await questionsById();
  const { env, executor } = await referenceEnv();
  oracleReturns = new Map();
  for (const seed of SEEDS) oracleReturns.set(seed, (await runEpisode(env, new OraclePolicy(), { seed })).episodeReturn);
  await executor.close();
});

/** Oracle episodes on a concurrent session; they must return exactly what they return in process. */
async function bystander(server: RunningServer): Promise<void> {
  const client = await SqlEnvClient.connect(server.url);
  for (const seed of SEEDS) {
    const played = await playPolicy(client, new OraclePolicy(), { seed }, questions);
    expect(played.episodeReturn).toBe(oracleReturns.get(seed));
  }
  await client.close();
}

describe('one server under misbehaving sessions', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ maxSessions: 6, sqlWorkers: 1, maxMessageBytes: 32 * 1024 });
  });
  afterAll(async () => {
    await server.close();
  });

  it('closes a socket that sends an oversized message with 1009; the bystander is unaffected', async () => {
    const rogue = await SqlEnvClient.connect(server.url);
    await rogue.reset({ seed: 1 });
    const done = bystander(server);
    rogue.sendRaw(JSON.stringify({ type: 'step', data: { action_type: 'QUERY', argument: `SELECT '${'x'.repeat(64 * 1024)}'` } }));
    expect((await rogue.closed).code).toBe(1009);
    await done;
    await eventually(() => server.stats().activeSessions === 0);
  });

  it('stops a runaway query at its time limit with an error observation; the next step works', async () => {
    const client = await SqlEnvClient.connect(server.url);
    const restarts = server.stats().sqlRestarts;
    await client.reset({ seed: 2 });
    const done = bystander(server);
    const stopped = await client.step({ action_type: 'QUERY', argument: RUNAWAY_SQL });
    expect(stopped.observation.error).toMatch(/time limit/);
    expect(stopped.observation.metadata.outcome).toBe('error');
    expect(server.stats().sqlRestarts).toBeGreaterThan(restarts);
    expect((await client.step({ action_type: 'QUERY', argument: 'SELECT count(*) FROM ' + stopped.observation.tables[0] })).observation.error).toBeNull();
    await done;
    await client.close();
  });

  it('cleans up a session whose socket closes mid-query; the bystander and new sessions are unaffected', async () => {
    const rogue = await SqlEnvClient.connect(server.url);
    await rogue.reset({ seed: 3 });
    const done = bystander(server);
    rogue.sendRaw(JSON.stringify({ type: 'step', data: { action_type: 'QUERY', argument: RUNAWAY_SQL } }));
    rogue.socket.terminate();
    await rogue.closed;
    await done;
    await eventually(() => server.stats().activeSessions === 0);
    const fresh = await SqlEnvClient.connect(server.url);
    expect((await fresh.reset({ seed: 4 })).done).toBe(false);
    await fresh.close();
  });

  it('answers a connection over capacity with CAPACITY_REACHED and closes it; a freed slot is reused', async () => {
    // A closed session frees its slot only once the server has seen the close and the session's work has settled, and
    // CAPACITY_REACHED counts slots, not open sessions: waiting for the open sessions to drop (as this test did) let
    // a connection meet a slot still closing (CAPACITY_REACHED, 6/6: in 3 of 6 runs of this test alone, 0 of 6 since).
    await eventually(() => server.stats().sessionSlotsHeld === 0);
    const clients = await Promise.all(Array.from({ length: 6 }, () => SqlEnvClient.connect(server.url)));
    await Promise.all(clients.map((c, i) => c.reset({ seed: i })));
    const extra = await SqlEnvClient.connect(server.url);
    expect(await extra.next()).toEqual({ type: 'error', data: { code: 'CAPACITY_REACHED', message: expect.stringMatching(/capacity/) as unknown, active_sessions: 6, max_sessions: 6 } });
    await extra.closed;
    // The sessions already open carry on.
    expect((await clients[0].step({ action_type: 'QUERY', argument: 'SELECT 1' })).observation.steps_left).toBe(9);
    await clients[5].close();
    await eventually(() => server.stats().sessionSlotsHeld === 5);
    const next = await SqlEnvClient.connect(server.url);
    expect((await next.reset({ seed: 9 })).done).toBe(false);
    await Promise.all([...clients.slice(0, 5), next].map((c) => c.close()));
  });
});

describe('session lifetime', () => {
  it('closes an idle session with SESSION_ERROR', async () => {
    const server = await startServer({ idleTimeoutMs: 150 });
    try {
      const client = await SqlEnvClient.connect(server.url);
      await client.reset({ seed: 1 });
      await expect(client.next()).resolves.toMatchObject({ type: 'error', data: { code: 'SESSION_ERROR' } });
      expect((await client.closed).code).toBe(1000);
      await eventually(() => server.stats().activeSessions === 0);
    } finally {
      await server.close();
    }
  });

  it('says goodbye (1001) to open sockets on close, twice harmlessly', async () => {
    const server = await startServer();
    const client = await SqlEnvClient.connect(server.url);
    await client.reset({ seed: 1 });
    await Promise.all([server.close(), server.close()]);
    expect((await client.closed).code).toBe(1001);
    await expect(client.state()).rejects.toThrow(/closed/);
    await expect(fetch(`${server.url}/health`)).rejects.toThrow();
  });

  it('reports errors from the server as ServerReplyError with the code', async () => {
    const server = await startServer();
    try {
      const client = await SqlEnvClient.connect(server.url);
      const error = await client.step({ action_type: 'ANSWER', argument: '1' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ServerReplyError);
      expect((error as ServerReplyError).message).toMatch(/\(code: EXECUTION_ERROR\)$/);
      await client.close();
    } finally {
      await server.close();
    }
  });
});
