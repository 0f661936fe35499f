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

/** Below this share of planned cells with a recorded duration, the split is mostly estimated: say so. */
export const LOW_DURATION_COVERAGE = 0.8;

/**
 * A recorded duration worth balancing by: a cell never takes 0 ms, so a zero (a cell an
 * interrupted run skipped) is no measurement, and counting it would pile every such cell
 * onto one shard.
 */
const measured = (d: number | undefined): d is number => d !== undefined && Number.isFinite(d) && d > 0;

/** How many of the planned cells have a recorded duration. */
export function durationCoverage(ids: string[], durations: Map<string, number>): { known: number; planned: number } {
  const unique = [...new Set(ids)];
  return { known: unique.filter((id) => measured(durations.get(id))).length, planned: unique.length };
}

/** The warning for durations that cover too few of the planned cells (an interrupted or partial run), else undefined. */
export function durationCoverageWarning(ids: string[], durations: Map<string, number>): string | undefined {
  const { known, planned } = durationCoverage(ids, durations);
  if (!planned || known / planned >= LOW_DURATION_COVERAGE) return undefined;
  const pct = Math.round((100 * known) / planned);
  return (
    `--shard-durations: only ${known} of ${planned} planned cell(s) (${pct}%) have a recorded duration; ` +
    `the others are estimated at the median of those${known ? '' : ' (none: dealt evenly)'}, so shards may not finish together ` +
    `(use the report of a complete run of the same cells)`
  );
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/**
 * The cells of one shard, the same on every machine for the same cells. Without recorded
 * durations cells are dealt round-robin in cell-id order; with them (a previous report) the
 * longest cells are placed first, each on the shard with the least total time so far, so
 * that shards finish together. Cells without a recorded duration (new, or skipped by an
 * interrupted run) count as the median of the recorded ones.
 */
export function shardCells(ids: string[], shard: Shard, durations?: Map<string, number>): string[] {
  const sorted = [...new Set(ids)].sort();
  const known = sorted.map((id) => durations?.get(id)).filter(measured);
  if (!durations || !known.length) return sorted.filter((_, i) => i % shard.count === shard.index - 1);
  const estimate = median(known);
  const cost = (id: string) => {
    const d = durations.get(id);
    return measured(d) ? d : estimate;
  };
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
