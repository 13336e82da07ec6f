/** Argument helpers shared by the CLI commands: typed choices and numbers with clear usage errors. */

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** A failure the user can act on (exit 1): main prints its message without a stack trace. */
export class CliError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CliError';
  }
}

export function choice<T extends string>(name: string, value: string | undefined, allowed: readonly T[], fallback?: T): T {
  if (value === undefined) {
    if (fallback !== undefined) return fallback;
    throw new UsageError(`--${name} is required (${allowed.join('|')}).`);
  }
  if (!(allowed as readonly string[]).includes(value)) throw new UsageError(`--${name} must be one of ${allowed.join('|')}, got '${value}'.`);
  return value as T;
}

export function integer(name: string, value: string | undefined, fallback: number, min = 0): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`--${name} must be an integer ≥ ${min}, got '${value}'.`);
  return n;
}

export function decimal(name: string, value: string | undefined, fallback: number, min = -Infinity, max = Infinity): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < min || n > max) {
    const range = max === Infinity ? `≥ ${min}` : min === -Infinity ? `≤ ${max}` : `in [${min}, ${max}]`;
    throw new UsageError(`--${name} must be a number ${range}, got '${value}'.`);
  }
  return n;
}

/** JSON.stringify that writes BLOB cells as hex instead of an object of indices. */
export function toJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (v instanceof Uint8Array ? { $blob: Buffer.from(v).toString('hex') } : v));
}
