import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { MemevalError } from '../util/errors.js';

/** The largest JSON-RPC message (one line) memeval accepts from a server unless its declaration says otherwise. */
export const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

export type Frame = { kind: 'message'; message: JSONRPCMessage } | { kind: 'noise'; line: string };

/** A message over the limit: the stream can no longer be trusted, so the session ends. */
export class OversizeMessage extends MemevalError {
  constructor(readonly limit: number) {
    super(
      'OVERSIZE_MESSAGE',
      `server sent a JSON-RPC message over ${formatBytes(limit)} (server.max_message_bytes in the target declaration)`,
    );
  }
}

export function formatBytes(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}

/**
 * Splits a stdio stream into newline-delimited JSON-RPC messages, with a size limit checked
 * before a line is buffered whole (the SDK's ReadBuffer throws from inside the stream handler).
 * A line that is not a JSON-RPC message is returned as noise, not dropped silently.
 */
export class LineFramer {
  private parts: Buffer[] = [];
  private size = 0;

  constructor(private readonly maxBytes = DEFAULT_MAX_MESSAGE_BYTES) {}

  /** Frames completed by this chunk; throws OversizeMessage once a line grows past the limit. */
  push(chunk: Buffer): Frame[] {
    const out: Frame[] = [];
    let start = 0;
    for (let nl = chunk.indexOf(10, start); nl !== -1; nl = chunk.indexOf(10, start)) {
      this.add(chunk.subarray(start, nl));
      const line = Buffer.concat(this.parts, this.size).toString('utf8').replace(/\r$/, '');
      this.parts = [];
      this.size = 0;
      start = nl + 1;
      if (line.trim()) out.push(parseLine(line));
    }
    if (start < chunk.length) this.add(chunk.subarray(start));
    return out;
  }

  private add(piece: Buffer): void {
    if (this.size + piece.length > this.maxBytes) {
      this.parts = [];
      this.size = 0;
      throw new OversizeMessage(this.maxBytes);
    }
    if (piece.length) this.parts.push(piece);
    this.size += piece.length;
  }
}

function parseLine(line: string): Frame {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { kind: 'noise', line };
  }
  try {
    const r = JSONRPCMessageSchema.safeParse(value);
    return r.success ? { kind: 'message', message: r.data } : { kind: 'noise', line };
  } catch {
    return { kind: 'noise', line }; // nested too deep to check: not a message we can trust
  }
}
