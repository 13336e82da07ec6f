/**
 * A closed session's slot (src/server/sessions.ts): the session leaves the open ones at once, but its slot — and its
 * database copy's executor key — is reused only once its operation in flight has settled, and CAPACITY_REACHED counts
 * slots. `slotsHeld` (the server's `stats().sessionSlotsHeld`) is what a caller waits on before counting on a free
 * slot; `active` alone said 0 while the server still refused a new session.
 */
import { describe, expect, it } from 'vitest';
import { SessionCapacityError, SessionManager } from '../../src/server/sessions.ts';
import { SqlPool } from '../../src/server/sql-pool.ts';
import { demoDataset } from './harness.ts';

describe('SessionManager slots', () => {
  it('keeps a closed session’s slot until its operation in flight settles, and refuses a new session meanwhile', async () => {
    const pool = new SqlPool(1);
    const manager = new SessionManager({ dataset: await demoDataset(), pool, maxSessions: 1, idleTimeoutMs: 0 });
    try {
      const session = manager.open();
      let finish!: () => void;
      let started!: () => void;
      const running = new Promise<void>((resolve) => (started = resolve));
      const inFlight = session.run(() => {
        started();
        return new Promise<void>((resolve) => (finish = resolve));
      });
      await running;
      const closing = manager.close(session);
      expect(manager.active).toBe(0);
      expect(manager.slotsHeld).toBe(1);
      expect(() => manager.open()).toThrow(SessionCapacityError);
      expect(() => manager.open()).toThrow('1/1 sessions are open');
      finish();
      await inFlight;
      await closing;
      expect(manager.slotsHeld).toBe(0);
      const next = manager.open();
      expect(next.slot).toBe(session.slot);
      await manager.close(next);
    } finally {
      await manager.closeAll();
      await pool.close();
    }
  });
});
