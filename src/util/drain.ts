import type { Writable } from 'node:stream';

/** Resolves once what was written has been flushed, the stream broke, or 10 s passed. */
export function drained(s: Writable): Promise<void> {
  if (!s.writableNeedDrain) return Promise.resolve();
  return new Promise((r) => {
    for (const ev of ['drain', 'error', 'close']) s.once(ev, () => r());
    setTimeout(r, 10000).unref();
  });
}
