import { existsSync, readFileSync } from 'node:fs';

/** Where a cell's sessions record stdout lines that are not JSON-RPC. */
export const NOISE_FILE = 'stdout-noise.jsonl';

/**
 * One warning per cell naming the stdout lines that were not JSON-RPC, e.g.
 * `server wrote 3 non-JSON-RPC line(s) on stdout: "loading index…", …`. Such lines are skipped,
 * not fatal: many servers log a banner there; a server that only speaks noise never answers and errors.
 */
export function noiseWarnings(file: string): string[] {
  if (!existsSync(file)) return [];
  const lines: string[] = [];
  let more = 0;
  for (const raw of readFileSync(file, 'utf8').split('\n')) {
    if (!raw.trim()) continue;
    try {
      const r = JSON.parse(raw) as { line?: string; more?: number };
      if (typeof r.line === 'string') lines.push(r.line);
      if (typeof r.more === 'number') more += r.more;
    } catch {
      /* a torn line from a killed run */
    }
  }
  if (!lines.length) return [];
  const shown = lines.slice(0, 5).map((l) => JSON.stringify(l.length > 120 ? `${l.slice(0, 120)}…` : l));
  const total = lines.length + more;
  return [`server wrote ${total} line(s) on stdout that are not JSON-RPC (skipped; all kept lines in ${NOISE_FILE}): ${shown.join(', ')}${total > shown.length ? ', …' : ''}`];
}
