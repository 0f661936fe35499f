import { InputError } from '../util/errors.js';

export interface Shard {
  /** 1-based */
  index: number;
  count: number;
}

export function parseShard(value: string): Shard {
  const m = /^(\d+)\/(\d+)$/.exec(value.trim());
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!m || count < 1 || index < 1 || index > count)
    throw new InputError(`--shard: "${value}" is not i/n with 1 <= i <= n (for example --shard 2/5)`);
  return { index, count };
}

/**
 * The cells of one shard, the same on every machine for the same cells. Without recorded
 * durations cells are dealt round-robin in cell-id order; with them (a previous report) the
 * longest cells are placed first, each on the shard with the least total time so far, so
 * that shards finish together. Cells the previous run did not have count as its mean.
 */
export function shardCells(ids: string[], shard: Shard, durations?: Map<string, number>): string[] {
  const sorted = [...new Set(ids)].sort();
  if (!durations?.size) return sorted.filter((_, i) => i % shard.count === shard.index - 1);
  const known = sorted.map((id) => durations.get(id)).filter((d): d is number => d !== undefined);
  const mean = known.length ? known.reduce((a, b) => a + b, 0) / known.length : 1;
  const cost = (id: string) => durations.get(id) ?? mean;
  const order = [...sorted].sort((a, b) => cost(b) - cost(a) || (a < b ? -1 : 1));
  const load = Array.from({ length: shard.count }, () => 0);
  const mine: string[] = [];
  for (const id of order) {
    let best = 0;
    for (let s = 1; s < shard.count; s++) if (load[s] < load[best]) best = s;
    load[best] += cost(id);
    if (best === shard.index - 1) mine.push(id);
  }
  return mine.sort();
}
