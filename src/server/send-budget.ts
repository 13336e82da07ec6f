/**
 * A server-wide budget for replies written but not yet read: the sum of `bufferedAmount` (bytes queued in `ws` and
 * in the socket's write buffer) over every WebSocket. A client that never reads its replies keeps them in server
 * memory; with a cap per connection alone, 60 such clients held ~1.3 GB. Here:
 *
 * - a socket whose own backlog would pass `perSocketBytes` is closed with 1008 (it is not reading);
 * - when the total passes `totalBytes`, the sockets with the largest backlogs (the slowest readers) are closed with
 *   1013 (try again later) until the total is back under the budget.
 *
 * The close frame carries the code and reason, but it is queued behind the unread replies: a socket that holds more
 * than CLOSE_FRAME_ROOM unread bytes is terminated at once (its peer would never read the frame, and waiting would
 * keep every shed socket's backlog in memory: with 60 such clients that was ~0.8 GB), a smaller one after
 * CLOSE_GRACE_MS if its close handshake has not finished. Sockets being closed take no new replies.
 */
import type { WebSocket } from 'ws';

export const DEFAULT_SEND_BUDGET_BYTES = 64 * 1024 * 1024;
export const DEFAULT_SOCKET_SEND_BYTES = 16 * 1024 * 1024;
const CLOSE_GRACE_MS = 2_000;
const CLOSE_FRAME_ROOM = 64 * 1024;

export class SendBudget {
  readonly totalBytes: number;
  readonly perSocketBytes: number;
  private readonly sockets = new Set<WebSocket>();
  /** Sockets closed for reading too slowly, so far. */
  closedSlowReaders = 0;

  constructor(totalBytes = DEFAULT_SEND_BUDGET_BYTES, perSocketBytes = Math.min(DEFAULT_SOCKET_SEND_BYTES, totalBytes)) {
    if (!(totalBytes > 0) || !(perSocketBytes > 0)) throw new RangeError(`Send budgets must be positive, got ${totalBytes} and ${perSocketBytes} bytes.`);
    this.totalBytes = totalBytes;
    this.perSocketBytes = perSocketBytes;
  }

  add(socket: WebSocket): void {
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
  }

  /** Bytes written to open sockets and not yet taken by their peers. */
  buffered(): number {
    let sum = 0;
    for (const socket of this.sockets) sum += socket.bufferedAmount;
    return sum;
  }

  /** Sends `text` on `socket` within the budgets; a socket over them is closed instead (see the header). */
  send(socket: WebSocket, text: string): void {
    if (socket.readyState !== socket.OPEN) return;
    if (socket.bufferedAmount + Buffer.byteLength(text) > this.perSocketBytes) {
      this.shut(socket, 1008, 'Too many unread replies: read each reply before sending more.');
      return;
    }
    socket.send(text);
    let total = this.buffered();
    if (total <= this.totalBytes) return;
    const slowestFirst = [...this.sockets].sort((a, b) => b.bufferedAmount - a.bufferedAmount);
    for (const slow of slowestFirst) {
      if (total <= this.totalBytes) break;
      total -= slow.bufferedAmount;
      this.shut(slow, 1013, 'Server send buffers full: this connection read the slowest. Reconnect and read your replies.');
    }
  }

  private shut(socket: WebSocket, code: number, reason: string): void {
    this.sockets.delete(socket);
    this.closedSlowReaders++;
    socket.close(code, reason);
    if (socket.bufferedAmount > CLOSE_FRAME_ROOM) {
      socket.terminate();
      return;
    }
    const timer = setTimeout(() => socket.terminate(), CLOSE_GRACE_MS);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
  }
}
