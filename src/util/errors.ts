import { ERROR_EXITS, type ErrorCode } from '../core/results.js';

export type { ErrorCode };

/**
 * The base of every error memeval raises on purpose. `code` says what went wrong, so callers
 * (the fuzzer, a cell's result) switch on it instead of on message text; `exit` is the code the
 * CLI ends with when the error reaches it. An error that wraps another keeps it as `cause`.
 */
export class MemevalError extends Error {
  readonly exit: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.exit = ERROR_EXITS[code];
    this.name = new.target.name;
  }
}

/** An error in user input (scenario, target, flags). The CLI maps it to exit code 3. */
export class InputError extends MemevalError {
  constructor(
    message: string,
    readonly problems: string[] = [message],
  ) {
    super('INPUT', message);
  }
}

/**
 * The run could not write its own results (a full or read-only disk mid-run). The cells were
 * torn down; the message says where the partial run is. The CLI exits 1 with it, no trace.
 */
export class RunWriteError extends MemevalError {
  constructor(
    readonly runDir: string,
    cause: unknown,
  ) {
    super(
      'RUN_WRITE',
      `cannot write the run's report in ${runDir} (${(cause as NodeJS.ErrnoException).code ?? messageOf(cause)}); ` +
        `every cell was stopped and its fixture removed; the partial run (cell dirs, logs) is in ${runDir}`,
      { cause },
    );
  }
}

/** Raised inside a cell when the run is interrupted: the cell ends as `skipped`. */
export class Interrupted extends MemevalError {
  constructor(message = 'interrupted') {
    super('INTERRUPTED', message);
  }
}

/** What a caught value says: an Error's message, or the value itself (a thrown string, a rejected non-Error). */
export function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

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
