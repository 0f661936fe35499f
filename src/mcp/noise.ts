import { z } from 'zod';
import { JsonlError, readJsonl, tornLine, type JsonlRead } from '../util/jsonl.js';
import { clip } from '../util/text.js';

/** Where a cell's sessions record stdout lines that are not JSON-RPC. */
export const NOISE_FILE = 'stdout-noise.jsonl';

/** One line of it: a kept line, or how many more were dropped. */
const noiseSchema = z.object({ line: z.string().optional(), more: z.number().optional() });

/**
 * One warning per cell naming the stdout lines that were not JSON-RPC, e.g.
 * `server wrote 3 non-JSON-RPC line(s) on stdout: "loading index…", …`. Such lines are skipped,
 * not fatal: many servers log a banner there; a server that only speaks noise never answers and errors.
 */
export function noiseWarnings(file: string): string[] {
  let log: JsonlRead<z.infer<typeof noiseSchema>>;
  try {
    log = readJsonl(file, noiseSchema);
  } catch (e) {
    if (!(e instanceof JsonlError)) throw e;
    return [`the server's stdout lines that are not JSON-RPC cannot be listed: ${e.message}`];
  }
  const lines = log.records.flatMap((r) => (r.line === undefined ? [] : [r.line]));
  const more = log.records.reduce((n, r) => n + (r.more ?? 0), 0);
  const torn = log.torn === undefined ? [] : [tornLine(file, log.torn)];
  if (!lines.length) return torn;
  const shown = lines.slice(0, 5).map((l) => JSON.stringify(clip(l, 120)));
  const total = lines.length + more;
  return [
    `server wrote ${total} line(s) on stdout that are not JSON-RPC (skipped; all kept lines in ${NOISE_FILE}): ${shown.join(', ')}${total > shown.length ? ', …' : ''}`,
    ...torn,
  ];
}
