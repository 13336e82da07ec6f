/**
 * A progress bar on stderr for long runs: redrawn in place on a terminal, a line every 10% otherwise (CI logs).
 */
export interface Progress {
  update(done: number, total: number): void;
  finish(): void;
}

function seconds(s: number): string {
  return s >= 90 ? `${Math.round(s / 60)}m` : `${Math.max(0, Math.round(s))}s`;
}

export function createProgress(label: string, stream: NodeJS.WriteStream = process.stderr): Progress {
  const started = performance.now();
  let lastDecile = -1;
  let drawn = false;
  return {
    update(done, total) {
      const elapsed = (performance.now() - started) / 1000;
      const rate = done / Math.max(elapsed, 1e-9);
      const eta = rate > 0 ? (total - done) / rate : 0;
      const fraction = total > 0 ? done / total : 1;
      const text = `${label} ${done}/${total} ${(100 * fraction).toFixed(0)}% ${rate.toFixed(1)}/s ETA ${seconds(eta)}`;
      if (stream.isTTY) {
        const width = 24;
        const filled = Math.round(width * fraction);
        stream.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${text}\x1b[K`);
        drawn = true;
      } else {
        const decile = Math.floor(fraction * 10);
        if (decile !== lastDecile) {
          lastDecile = decile;
          stream.write(`${text}\n`);
        }
      }
    },
    finish() {
      if (drawn) stream.write('\n');
    },
  };
}
