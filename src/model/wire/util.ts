import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';

/** Small helpers every wire adapter needs to read loosely typed request bodies and answer. */
export type Json = Record<string, unknown>;

export const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
export const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The path without query string or trailing slash: agents add both inconsistently. */
export function pathname(path: string): string {
  const q = path.indexOf('?');
  return (q < 0 ? path : path.slice(0, q)).replace(/\/+$/, '');
}

export const newId = (prefix: string): string => prefix + randomBytes(12).toString('hex');

export function sendJson(
  res: ServerResponse,
  status: number,
  data: unknown,
  headers: Record<string, string> = {},
): void {
  const body = JSON.stringify(data);
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}

/** A whole SSE stream in one write: the scripted answer is known before the first byte. */
export function sendSse(res: ServerResponse, events: string, headers: Record<string, string> = {}): void {
  res.writeHead(200, { ...headers, 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  res.end(events);
}

/** Rough token count of a payload: a quarter of its bytes, at least 1. */
export const roughTokens = (bytes: number): number => Math.max(1, Math.ceil(bytes / 4));

/** Text of a content value: a string, or an array of parts whose texts are joined (other parts noted by type). */
export function partsText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const out: string[] = [];
  for (const p of content) {
    if (typeof p === 'string') out.push(p);
    else if (isObj(p)) out.push(typeof p.text === 'string' ? p.text : `[${str(p.type) || 'part'}]`);
  }
  return out.join('\n');
}
