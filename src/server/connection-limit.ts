/**
 * How many connections the server accepts at once: below the process's open-files limit (RLIMIT_NOFILE), so that
 * idle connections can never use up the descriptors and lock every client out (with a limit of 1,024, 1,100 idle
 * connections made accept() fail and the health check time out). Over the limit node:http closes a new connection
 * at once, and idle ones are timed out (server.ts), so a well-behaved client gets in again soon.
 *
 * Node has no getrlimit: Linux's /proc/self/limits is read, then `ulimit -n` of a shell (which inherits the limit);
 * when neither answers, the configured limit stands alone.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

export const DEFAULT_MAX_CONNECTIONS = 1_024;
/** Descriptors kept for everything but client connections: the listener, SQL worker threads' loops, files, stdio. */
export const RESERVED_FILES = 128;

/** The soft open-files limit, or null when it cannot be read (or is unlimited). */
export function openFilesLimit(): number | null {
  try {
    const match = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    if (match) return match[1] === 'unlimited' ? null : Number(match[1]);
  } catch {
    // Not Linux: ask a shell.
  }
  try {
    const out = spawnSync('sh', ['-c', 'ulimit -n'], { encoding: 'utf8', timeout: 2_000 });
    const n = Number(out.stdout.trim());
    return Number.isInteger(n) && n > 0 ? n : null;
  } catch {
    return null;
  }
}

/** `configured`, lowered to leave RESERVED_FILES descriptors free (or half of a small limit); at least 1. */
export function connectionLimit(configured: number, openFiles: number | null): number {
  if (openFiles === null) return configured;
  const usable = openFiles > 2 * RESERVED_FILES ? openFiles - RESERVED_FILES : Math.floor(openFiles / 2);
  return Math.max(1, Math.min(configured, usable));
}
