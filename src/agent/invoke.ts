import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { binCommand, killTree, track, untrack } from '../util/processes.js';
import type { Invocation } from './types.js';

export interface InvokeResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
  startedAt: number;
  timedOut: boolean;
}

/**
 * Run one agent prompt: stdin closed unless the invocation carries input (several agents read
 * piped stdin into the prompt), its own process group, and on timeout SIGINT, then SIGTERM,
 * then SIGKILL to the whole group.
 */
export async function invokeAgent(
  bin: string,
  inv: Invocation,
  o: { timeoutMs: number; stdoutFile: string; stderrFile: string; signal?: AbortSignal },
): Promise<InvokeResult> {
  const startedAt = Date.now();
  const t0 = performance.now();
  const run = binCommand(bin, inv.args);
  const child = spawn(run.command, run.args, {
    cwd: inv.cwd,
    env: inv.env,
    stdio: [inv.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    detached: true,
  });
  track(child);
  if (inv.stdin !== undefined) {
    // an agent that exits before reading it must not crash memeval with EPIPE
    child.stdin!.on('error', () => {});
    child.stdin!.end(inv.stdin);
  }
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout!.on('data', (c: Buffer) => out.push(c));
  child.stderr!.on('data', (c: Buffer) => err.push(c));
  let exit: { code: number | null; signal: NodeJS.Signals | null } = { code: null, signal: null };
  const exited = new Promise<void>((resolve) => {
    child.once('error', (e) => {
      err.push(Buffer.from(`memeval: cannot start ${bin}: ${e.message}\n`));
      resolve();
    });
    child.once('close', (code, signal) => {
      exit = { code, signal };
      resolve();
    });
  });
  let timedOut = false;
  const stop = async () => {
    await killTree(child, exited, 3000, ['SIGINT']);
  };
  const timer = setTimeout(() => {
    timedOut = true;
    void stop();
  }, o.timeoutMs);
  const onAbort = () => void stop();
  o.signal?.addEventListener('abort', onAbort, { once: true });
  await exited;
  clearTimeout(timer);
  o.signal?.removeEventListener('abort', onAbort);
  untrack(child);
  const stdout = Buffer.concat(out).toString('utf8');
  const stderr = Buffer.concat(err).toString('utf8');
  writeFileSync(o.stdoutFile, stdout);
  writeFileSync(o.stderrFile, stderr);
  return {
    exitCode: exit.code,
    signal: exit.signal,
    stdout,
    stderr,
    ms: Math.round(performance.now() - t0),
    startedAt,
    timedOut,
  };
}
