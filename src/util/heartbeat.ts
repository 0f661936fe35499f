/**
 * A line every `everyMs` while `work` runs, so a phase that takes minutes (npm install, a
 * node-gyp compile, a wait on another process's lock) is not minutes of silence between its
 * start and end lines. The timer never keeps the process alive on its own.
 */
export async function withHeartbeat<T>(
  log: (line: string) => void,
  what: string,
  work: () => Promise<T>,
  everyMs = heartbeatMs(),
): Promise<T> {
  const t0 = performance.now();
  const timer = setInterval(
    () => log(`${what}: still running (${Math.round((performance.now() - t0) / 1000)} s)`),
    everyMs,
  );
  timer.unref();
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

/** 15 s by default; MEMEVAL_HEARTBEAT_MS changes it (a positive integer, else the default). */
export function heartbeatMs(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.MEMEVAL_HEARTBEAT_MS);
  return Number.isInteger(n) && n > 0 ? n : 15_000;
}
