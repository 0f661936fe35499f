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

export function sendJson(res: ServerResponse, status: number, data: unknown): void {
  const body = JSON.stringify(data);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}
