/**
 * Raw TCP clients for the hostile-client tests: HTTP requests written byte for byte (targets a URL parser would
 * never produce), and a WebSocket client that writes its frames in one go and parses what comes back, so a test can
 * see a close code the server sent while the client kept many messages in flight.
 */
import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';

export function addressOf(url: string): { host: string; port: number } {
  const { hostname, port } = new URL(url);
  return { host: hostname, port: Number(port) };
}

export function openSocket(url: string): Promise<Socket> {
  const { host, port } = addressOf(url);
  return new Promise((resolve, reject) => {
    const socket = connect(port, host, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Writes `request` as is and resolves with everything the server sent until it closed the connection. */
export async function rawRequest(url: string, request: string): Promise<string> {
  const socket = await openSocket(url);
  socket.on('error', () => undefined);
  const chunks: Buffer[] = [];
  socket.on('data', (d: Buffer) => chunks.push(d));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.write(request);
  await closed;
  return Buffer.concat(chunks).toString('latin1');
}

/** The status code of a raw HTTP response, or null when the server sent nothing. */
export function statusOf(response: string): number | null {
  const match = /^HTTP\/1\.1 (\d{3})/.exec(response);
  return match ? Number(match[1]) : null;
}

/** One masked client text frame (RFC 6455 §5.2). */
export function clientFrame(text: string): Buffer {
  const payload = Buffer.from(text);
  const n = payload.length;
  const header = n < 126 ? Buffer.from([0x81, 0x80 | n]) : n < 65_536 ? Buffer.from([0x81, 0x80 | 126, n >> 8, n & 0xff]) : null;
  if (!header) throw new RangeError('clientFrame: payload over 64 KiB');
  const mask = randomBytes(4);
  const masked = Buffer.alloc(n);
  for (let i = 0; i < n; i++) masked[i] = payload[i] ^ mask[i % 4];
  return Buffer.concat([header, mask, masked]);
}

export interface ServerFrames {
  texts: string[];
  /** The close code the server sent, if it sent a close frame. */
  closeCode: number | null;
}

/** Parses the unmasked frames a server sent (text and close only; the tests need no others). */
export function parseServerFrames(data: Buffer): ServerFrames {
  const frames: ServerFrames = { texts: [], closeCode: null };
  let at = 0;
  while (at + 2 <= data.length) {
    const opcode = data[at] & 0x0f;
    let length = data[at + 1] & 0x7f;
    let start = at + 2;
    if (length === 126) {
      length = data.readUInt16BE(at + 2);
      start = at + 4;
    } else if (length === 127) {
      length = Number(data.readBigUInt64BE(at + 2));
      start = at + 10;
    }
    if (start + length > data.length) break;
    const payload = data.subarray(start, start + length);
    if (opcode === 0x1) frames.texts.push(payload.toString('utf8'));
    if (opcode === 0x8 && payload.length >= 2) frames.closeCode = payload.readUInt16BE(0);
    at = start + length;
  }
  return frames;
}

/**
 * Opens /ws by hand (headers as given), then resolves with the socket and what it has received after the 101
 * response; rejects with the status line when the upgrade is refused.
 */
export async function rawWebSocket(url: string, headers: Record<string, string> = {}, path = '/ws'): Promise<{ socket: Socket; received: () => Buffer }> {
  const socket = await openSocket(url);
  socket.on('error', () => undefined);
  const { host, port } = addressOf(url);
  const all: Record<string, string> = { Host: `${host}:${port}`, Upgrade: 'websocket', Connection: 'Upgrade', 'Sec-WebSocket-Key': randomBytes(16).toString('base64'), 'Sec-WebSocket-Version': '13', ...headers };
  const lines = [`GET ${path} HTTP/1.1`, ...Object.entries(all).map(([k, v]) => `${k}: ${v}`)];
  let buffer = Buffer.alloc(0);
  let body: Buffer | null = null;
  await new Promise<void>((resolve, reject) => {
    socket.on('data', (d: Buffer) => {
      if (body) {
        body = Buffer.concat([body, d]);
        return;
      }
      buffer = Buffer.concat([buffer, d]);
      const end = buffer.indexOf('\r\n\r\n');
      if (end === -1) return;
      const head = buffer.subarray(0, end).toString('latin1');
      if (!head.startsWith('HTTP/1.1 101')) {
        reject(new Error(head.split('\r\n')[0]));
        return;
      }
      body = buffer.subarray(end + 4);
      resolve();
    });
    socket.once('close', () => reject(new Error('closed before the upgrade')));
    socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  });
  return { socket, received: () => body ?? Buffer.alloc(0) };
}
