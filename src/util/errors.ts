/** An error in user input (scenario, target, flags). The CLI maps it to exit code 3. */
export class InputError extends Error {
  constructor(
    message: string,
    readonly problems: string[] = [message],
  ) {
    super(message);
    this.name = 'InputError';
  }
}

/**
 * The run could not write its own results (a full or read-only disk mid-run). The cells were
 * torn down; the message says where the partial run is. The CLI exits 1 with it, no trace.
 */
export class RunWriteError extends Error {
  constructor(
    readonly runDir: string,
    cause: unknown,
  ) {
    super(
      `cannot write the run's report in ${runDir} (${(cause as NodeJS.ErrnoException).code ?? (cause as Error).message}); ` +
        `every cell was stopped and its fixture removed; the partial run (cell dirs, logs) is in ${runDir}`,
    );
    this.name = 'RunWriteError';
  }
}

/** Raised inside a cell when the run is interrupted: the cell ends as `skipped`. */
export class Interrupted extends Error {}

/** Levenshtein distance, used to suggest the nearest known name for a typo. */
export function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0];
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j];
      prev[j] = Math.min(prev[j] + 1, prev[j - 1] + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = tmp;
    }
  }
  return prev[b.length];
}

export function nearest(word: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDist = Infinity;
  for (const c of candidates) {
    const d = editDistance(word.toLowerCase(), c.toLowerCase());
    if (d < bestDist) {
      best = c;
      bestDist = d;
    }
  }
  return best !== undefined && bestDist <= Math.max(2, Math.floor(word.length / 3)) ? best : undefined;
}
