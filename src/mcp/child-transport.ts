import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { track, untrack, killTree, killGroupNow, signalGroup } from '../util/processes.js';
import { CappedLog } from './capped-log.js';
import { isolatedCommand, killTagged, newOwnerTag, OWNER_VAR } from '../util/isolation.js';
import { DEFAULT_MAX_MESSAGE_BYTES, LineFramer, OversizeMessage } from './framing.js';
import type { CallRecorder } from './recorder.js';
import { StoreFailureWatch } from './store-failure.js';

export interface ChildSpec {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  stderrFile?: string;
  /** lines on stdout that are not JSON-RPC are appended here (the first few) */
  noiseFile?: string;
  maxMessageBytes?: number;
  /** lines (stderr, non-JSON-RPC stdout) saying the server's store could not be opened */
  storeFailures?: readonly RegExp[];
}

/** How many non-JSON-RPC stdout lines are kept word for word; the rest are counted. */
const NOISE_KEPT = 20;
const NOISE_LINE_CHARS = 300;

/** How a server that exited went away, for reasons: "exited with code 7", "killed by SIGKILL". */
export function describeExit(exit: { code: number | null; signal: NodeJS.Signals | null }): string {
  return exit.signal ? `server was killed by ${exit.signal}` : `server exited with code ${exit.code}`;
}

/**
 * What was wrong with how a server ended when memeval stopped it, or undefined when it ended as
 * MCP's stdio shutdown asks: exit 0 once its stdin closes, or end on the SIGTERM that follows
 * (killed by it, or 0, or 128+15 from a wrapper). A server SIGKILLed after ignoring both is
 * not counted here: on a loaded machine that can be slowness (see stopWarning).
 */
export function stopProblem(s: ChildTransport['stopped']): string | undefined {
  if (!s || s.took === 'SIGKILL') return undefined;
  const how = s.signal ? `was killed by ${s.signal}` : `exited with code ${s.code}`;
  if (s.took === 'exit') return s.code === 0 && !s.signal ? undefined : `${how} when its stdin closed (asked to stop)`;
  return s.signal === 'SIGTERM' || s.code === 0 || s.code === 143 ? undefined : `${how} on SIGTERM (asked to stop)`;
}

/** How a server memeval killed on purpose ended (a kill step). */
export interface KillEnd {
  /** what ended it: the signal sent, SIGKILL after a SIGTERM it outlived, or nothing (it had already exited) */
  took: 'SIGKILL' | 'SIGTERM' | 'SIGKILL after SIGTERM' | 'already exited';
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** How long a server that exited may hold its stdout open before memeval stops reading it. */
const STDOUT_DRAIN_MS = 1000;

/** A server that needed SIGKILL to stop, as a warning. */
export function stopWarning(s: ChildTransport['stopped'], graceMs = 2000): string | undefined {
  return s?.took === 'SIGKILL'
    ? `did not exit within ${graceMs} ms of its stdin closing nor ${graceMs} ms of SIGTERM: killed by SIGKILL`
    : undefined;
}

/**
 * MCP stdio client transport over a child process in its own process group, so the
 * whole tree can be killed, with capped stderr, a message size limit, a record of stdout
 * lines that are not JSON-RPC, and a call recorder.
 */
export class ChildTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private child?: ChildProcess;
  private framer: LineFramer;
  private stderrLog: CappedLog;
  private exited?: Promise<void>;
  private stderrDone?: Promise<void>;
  exitInfo?: { code: number | null; signal: NodeJS.Signals | null };
  /** how the server went when memeval stopped it: what it took, and its exit (undefined if it was gone before) */
  stopped?: { took: 'exit' | 'SIGTERM' | 'SIGKILL'; code: number | null; signal: NodeJS.Signals | null };
  /** why memeval stopped listening to this server (e.g. an oversize message) */
  fault?: string;
  /** the signal memeval killed this server with on purpose (a kill step): calls in flight were never answered */
  killedBy?: NodeJS.Signals;
  /** a kill step's partial write: the next tools/call request is written only up to `bytes` */
  private partial?: { bytes: number; sent: (r: { sent: number; of: number }) => void };
  /** stdout lines that were not JSON-RPC: how many, and the first few */
  readonly noise = { count: 0, lines: [] as string[] };
  private readonly storeWatch: StoreFailureWatch;

  constructor(
    private readonly spec: ChildSpec,
    private readonly recorder?: CallRecorder,
  ) {
    this.framer = new LineFramer(spec.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES);
    this.stderrLog = new CappedLog(spec.stderrFile);
    this.storeWatch = new StoreFailureWatch(spec.storeFailures ?? []);
  }

  /** The first line the server wrote saying its store could not be opened, if any. */
  storeFailure(): StoreFailureWatch['found'] {
    return this.storeWatch.found;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** The end of the server's stderr, saying how much was dropped. */
  stderr(): string {
    return this.stderrLog.text();
  }

  /** Why the server is gone or unusable, or undefined while it is healthy. */
  failure(): string | undefined {
    if (this.fault) return this.fault;
    return this.exitInfo ? describeExit(this.exitInfo) : undefined;
  }

  async start(): Promise<void> {
    const tag = newOwnerTag();
    const launch = isolatedCommand(this.spec.command, this.spec.args);
    const child = spawn(launch.command, launch.args, {
      cwd: this.spec.cwd,
      env: { ...this.spec.env, [OWNER_VAR]: tag },
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    this.child = child;
    // an answer the server wrote just before it died may still be in the pipe when 'exit' comes:
    // read it before calling the calls still waiting unanswered (a killed server's ack counts)
    const stdoutClosed = new Promise<void>((resolve) => child.stdout?.once('close', () => resolve()));
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.exitInfo = { code, signal };
        untrack(child);
        killTagged(tag); // daemons it started in their own session (the namespace, where there is one, took them already)
        const drained = new Promise<void>((r) => setTimeout(r, STDOUT_DRAIN_MS).unref());
        void Promise.race([stdoutClosed, drained]).then(() => {
          if (this.killedBy)
            this.recorder?.flushPending(
              `no answer: memeval killed the server with ${this.killedBy} while the call was in flight`,
              true,
            );
          else this.recorder?.flushPending(`${this.fault ?? describeExit(this.exitInfo!)} before answering`);
          resolve();
          this.onclose?.();
        });
      });
      // a command that cannot be spawned never emits 'exit': without this, close() waits forever
      child.once('error', (e) => {
        if (this.exitInfo !== undefined) return;
        this.exitInfo = { code: null, signal: null };
        this.stderrLog.write(Buffer.from(`cannot start ${this.spec.command}: ${e.message}\n`));
        untrack(child);
        resolve();
      });
    });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', () => resolve());
      child.once('error', (e) => reject(e));
    });
    track(child);
    child.on('error', (e) => this.onerror?.(e));
    child.stdin!.on('error', (e) => this.onerror?.(e));
    child.stdout!.on('data', (chunk: Buffer) => {
      if (this.fault) return;
      let frames;
      try {
        frames = this.framer.push(chunk);
      } catch (e) {
        if (!(e instanceof OversizeMessage)) throw e;
        this.fault = e.message;
        killGroupNow(child); // the stream is out of step: nothing more it says can be trusted
        this.onerror?.(e);
        return;
      }
      for (const f of frames) {
        if (f.kind === 'noise') {
          this.recordNoise(f.line);
          continue;
        }
        this.recorder?.incoming(f.message);
        if (this.logFailed(child)) return;
        this.onmessage?.(f.message);
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      this.stderrLog.write(chunk);
      this.storeWatch.stderr(chunk.toString('utf8'));
    });
    this.stderrDone = new Promise((resolve) =>
      child.stderr!.once('close', () => {
        this.storeWatch.end();
        resolve();
      }),
    );
  }

  /** A calls log that cannot be written is missing evidence: stop the server, the cell is an error. */
  private logFailed(child: ChildProcess): boolean {
    const err = this.recorder?.writeError;
    if (!err) return false;
    this.fault ??= `cannot write the calls log (${(err as NodeJS.ErrnoException).code ?? err.message})`;
    killGroupNow(child);
    return true;
  }

  private recordNoise(line: string): void {
    this.storeWatch.stdout(line);
    this.noise.count++;
    if (this.noise.lines.length >= NOISE_KEPT) return;
    const kept = line.length > NOISE_LINE_CHARS ? `${line.slice(0, NOISE_LINE_CHARS)}…` : line;
    this.noise.lines.push(kept);
    if (this.spec.noiseFile) {
      try {
        appendFileSync(this.spec.noiseFile, JSON.stringify({ line: kept }) + '\n');
      } catch {
        /* the count in memory still tells */
      }
    }
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const out = this.recorder ? this.recorder.outgoing(message) : message;
    const stdin = this.child?.stdin;
    if (this.child && this.logFailed(this.child)) throw new Error(this.fault);
    if (this.fault) throw new Error(this.fault);
    if (!stdin || stdin.destroyed) throw new Error(this.failure() ?? 'server is not running');
    let bytes = Buffer.from(serializeMessage(out));
    const partial = 'method' in out && out.method === 'tools/call' ? this.partial : undefined;
    if (partial) {
      this.partial = undefined;
      bytes = bytes.subarray(0, Math.min(partial.bytes, bytes.length));
    }
    await new Promise<void>((resolve, reject) => {
      stdin.write(bytes, (err) => (err ? reject(err) : resolve()));
    });
    partial?.sent({ sent: bytes.length, of: Buffer.byteLength(serializeMessage(out)) });
  }

  /**
   * Write only the first `bytes` bytes of the next tools/call request (a kill step's `during:
   * { bytes }`): resolves once they are written to the server's stdin, with how many of how many.
   */
  armPartial(bytes: number): Promise<{ sent: number; of: number }> {
    return new Promise((sent) => (this.partial = { bytes, sent }));
  }

  /**
   * The server is about to be killed with `signal` by memeval, from this thread or another (a
   * watch on its store): from now on its calls in flight are the kill's, never answered. The
   * process group to signal, or undefined when it is not running.
   */
  armKill(signal: 'SIGKILL' | 'SIGTERM'): number | undefined {
    if (!this.child?.pid || this.exitInfo) return undefined;
    this.killedBy = signal;
    return this.child.pid;
  }

  /**
   * Kill the server as a crash would, without asking it to stop: `signal` to its whole process
   * group; after SIGTERM, SIGKILL if it is still there after `graceMs`. Calls in flight are
   * logged as never answered (killed). Resolves once it has exited and its answers are read.
   */
  async kill(signal: 'SIGKILL' | 'SIGTERM', graceMs = 2000): Promise<KillEnd> {
    const child = this.child;
    if (!child || !this.exited) throw new Error('kill: the server was never started');
    if (this.exitInfo) {
      await this.exited;
      // armed: the watch on another thread sent the signal (armKill)
      return { took: this.killedBy ? signal : 'already exited', ...this.exitInfo };
    }
    this.killedBy = signal;
    signalGroup(child, signal);
    let took: KillEnd['took'] = signal;
    if (signal === 'SIGTERM') {
      const gone = await Promise.race([
        this.exited.then(() => true),
        new Promise<false>((r) => setTimeout(() => r(false), graceMs).unref()),
      ]);
      if (!gone) {
        signalGroup(child, 'SIGKILL');
        took = 'SIGKILL after SIGTERM';
      }
    }
    await this.exited;
    signalGroup(child, 'SIGKILL'); // stragglers in the group
    return { took, ...this.exitInfo! };
  }

  /** Close stdin and wait for a clean exit; escalate to SIGTERM, then SIGKILL, on the group. */
  async close(graceMs = 2000): Promise<void> {
    const child = this.child;
    if (!child || !this.exited) return;
    if (this.exitInfo === undefined) {
      child.stdin?.end();
      const took = await killTree(child, this.exited, graceMs);
      this.stopped = { took, ...this.exitInfo! };
    }
    await this.exited;
    // 'exit' can come before the last of stderr is read; a grandchild holding the pipe must not stall us
    await Promise.race([this.stderrDone, new Promise((r) => setTimeout(r, 1000).unref())]);
    this.stderrLog.close();
    if (this.spec.noiseFile && this.noise.count > NOISE_KEPT) {
      try {
        appendFileSync(this.spec.noiseFile, JSON.stringify({ more: this.noise.count - NOISE_KEPT }) + '\n');
      } catch {
        /* as above */
      }
    }
  }
}
