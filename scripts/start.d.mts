// Types of scripts/start.mjs (plain JavaScript: `npm start` runs under node before anything is compiled).
export const DEFAULT_PORT: number;
export const DEFAULT_HOST: string;
export class StartUsageError extends Error {}
export function parsePort(text: string, source: string): number;
export function startOptions(argv: string[], env: Record<string, string | undefined>): { port: number; strictPort: boolean; host: string; build: boolean };
