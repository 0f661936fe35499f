/**
 * The process's signal handling, installed by the entry before any other module loads, so a
 * Ctrl-C, SIGTERM or SIGHUP (terminal closed) is never left to Node's default (death by signal,
 * fixtures left). Until a command takes over with `onSignal`, nothing memeval owns is running
 * yet and a signal just ends the process with 130. This module imports nothing on purpose.
 */
export const HANDLED_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
export type HandledSignal = (typeof HANDLED_SIGNALS)[number];

let current: ((sig: HandledSignal) => void) | undefined;
let installed = false;

export function installSignals(): void {
  if (installed) return;
  installed = true;
  for (const sig of HANDLED_SIGNALS) process.on(sig, () => (current ? current(sig) : process.exit(130)));
  // a closed pipe (`memeval run | head -1`) must not kill the run: stop printing, finish the run
  for (const stream of [process.stdout, process.stderr])
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code !== 'EPIPE' && e.code !== 'ERR_STREAM_DESTROYED') throw e;
    });
}

/** Take over the signals until the returned function is called. */
export function onSignal(handler: (sig: HandledSignal) => void): () => void {
  installSignals();
  const previous = current;
  current = handler;
  return () => {
    if (current === handler) current = previous;
  };
}
