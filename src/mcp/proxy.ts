import { isAlive } from '../util/processes.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { constants as osConstants } from 'node:os';
import {
  appendFileSync,
  closeSync,
  existsSync,
  fstatSync,
  openSync,
  readFileSync,
  readSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { describeExit, stopProblem } from './child-transport.js';
import { DEFAULT_MAX_MESSAGE_BYTES, LineFramer, OversizeMessage, type Frame } from './framing.js';
import { CallRecorder } from './recorder.js';
import { StoreFailureWatch, storeFailureRegexes } from './store-failure.js';
import type { PinWatch } from './store-pins.js';
import { onSignal } from '../util/signals.js';
import { isolatedCommand, isolationMode, killTagged, newOwnerTag, OWNER_VAR } from '../util/isolation.js';
import { JsonlError, readJsonl, tornLine } from '../util/jsonl.js';

export interface ProxyOptions {
  log: string;
  /** a number, or "auto": one more than the last proxy that logged to this file */
  session: number | 'auto';
  command: string;
  args: string[];
  /** the server's working directory (default: the proxy's) */
  cwd?: string;
  /** largest message accepted from either side (default 64 MiB) */
  maxMessageBytes?: number;
  /** the server's whole environment; absent = the proxy's own (manual use only) */
  env?: Record<string, string>;
  /** refuse tools/call past this many in this proxy session (one agent prompt), noting each refusal */
  maxCalls?: number;
  /** the declaration's server.store_failure patterns (the built-in ones are always watched for) */
  storeFailures?: string[];
  /** setup.store_sql's pinned rows: checked before the server starts and once it has answered its first request */
  pins?: PinWatch;
}

/** The file beside the calls log where the proxy notes each tools/call refused by the cap. */
export function capLog(log: string): string {
  return `${log}.capped`;
}

/** The file beside the calls log where the proxy notes how each server it was asked to stop exited. */
export function exitLog(log: string): string {
  return `${log}.exits`;
}

/** How long a server gets after its stdin closes, then after SIGTERM, as memeval's own sessions give it. */
const STOP_GRACE_MS = 2000;

type Took = 'exit' | 'SIGTERM' | 'SIGKILL';

const TERMINATION_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;

/** Ended by SIGTERM, SIGINT or SIGHUP: as the signal itself, or as a shell reports it (128 + its number). */
function terminatedBySignal(r: { code: number | null; signal: string | null }): boolean {
  return TERMINATION_SIGNALS.some((sig) => r.signal === sig || r.code === 128 + osConstants.signals[sig]);
}

/**
 * What was wrong with how a server ended: asked to stop (the proxy closed its stdin, then
 * SIGTERM, then SIGKILL, as memeval stops its own sessions), or not asked at all.
 */
export function proxyStopProblem(r: {
  asked: string | null;
  took?: Took;
  code: number | null;
  signal: string | null;
}): string | undefined {
  // death by a termination signal is a stop, not a crash: some agents signal the server's whole
  // tree themselves (opencode), so the server can be gone before the proxy hears of the stop
  if (r.took !== 'SIGKILL' && terminatedBySignal(r)) return undefined;
  if (r.asked === null)
    return r.code === 0 && !r.signal
      ? undefined
      : `${r.signal ? `was killed by ${r.signal}` : `exited with code ${r.code}`} before it was asked to stop`;
  // a server SIGKILLed after ignoring both is a shutdown problem here: the agent's run is over, no load explains it
  if (r.took === 'SIGKILL')
    return `did not end within ${STOP_GRACE_MS} ms of its stdin closing nor of SIGTERM: killed by SIGKILL`;
  return stopProblem({ took: r.took ?? 'exit', code: r.code, signal: r.signal as NodeJS.Signals | null });
}

/**
 * A line of the exit-notes file: a proxy started its server (`watcher`: the process whose life
 * is the server's), the agent asked it to stop, or how the server exited as the proxy saw it.
 */
type ExitNote =
  | { session: number; started: true; pid: number; watcher: number }
  | { session: number; asked: string; stopping: true }
  | { session: number; store_failure: string; stream: 'stderr' | 'stdout' }
  | { session: number; pins_lost: string }
  | { session: number; asked: string | null; took?: Took; code: number | null; signal: string | null; fault?: string };

/**
 * Where the server's exit status is written from inside its PID namespace, by the shell that is
 * PID 1 there: it outlives a proxy the agent kills (Codex kills it as it closes its stdin).
 */
export function statusFile(log: string, session: number): string {
  return `${log}.status-${session}`;
}

const exitNoteSchema = z.union([
  z.object({ session: z.number(), started: z.literal(true), pid: z.number(), watcher: z.number() }),
  z.object({ session: z.number(), asked: z.string(), stopping: z.literal(true) }),
  z.object({ session: z.number(), store_failure: z.string(), stream: z.enum(['stderr', 'stdout']) }),
  z.object({ session: z.number(), pins_lost: z.string() }),
  z.object({
    session: z.number(),
    asked: z.string().nullable(),
    took: z.enum(['exit', 'SIGTERM', 'SIGKILL']).optional(),
    code: z.number().nullable(),
    signal: z.string().nullable(),
    fault: z.string().optional(),
  }),
]);

/** The exit notes, and the problems of notes that cannot be read (how that server ended is unknown). */
function readExitNotes(log: string): { notes: ExitNote[]; unparsed: string[] } {
  try {
    const { records, torn } = readJsonl(exitLog(log), exitNoteSchema);
    const lost = torn === undefined ? [] : [`an exit note of the proxy is lost: ${tornLine(exitLog(log), torn)}`];
    return { notes: records as ExitNote[], unparsed: lost };
  } catch (e) {
    if (!(e instanceof JsonlError)) throw e;
    return { notes: [], unparsed: [`the proxy's exit notes cannot be read: ${e.message}`] };
  }
}

/** The status the shell in the namespace wrote, if it did. */
function readStatus(log: string, session: number): number | undefined {
  const f = statusFile(log, session);
  if (!existsSync(f)) return undefined;
  const n = Number(readFileSync(f, 'utf8').trim());
  return Number.isInteger(n) ? n : undefined;
}

type Ended = {
  session: number;
  asked: string | null;
  took?: Took;
  code: number | null;
  signal: string | null;
  fault?: string;
};

/** How each started server ended: as the proxy saw it, else as the shell in its namespace wrote it; undefined when nobody saw. */
function endings(log: string, notes: ExitNote[]): { session: number; watcher: number; proxy: number; ended?: Ended }[] {
  return notes.flatMap((n): { session: number; watcher: number; proxy: number; ended?: Ended }[] => {
    if (!('started' in n)) return [];
    const seen = notes.find((x): x is Ended => x.session === n.session && 'code' in x);
    if (seen) return [{ session: n.session, watcher: n.watcher, proxy: n.pid, ended: seen }];
    const code = readStatus(log, n.session);
    // no stop request noted: the proxy died first, and its death closed the server's stdin; a
    // proxy killed this early never escalated to SIGTERM
    const asked =
      notes.find((x): x is Extract<ExitNote, { stopping: true }> => x.session === n.session && 'stopping' in x)
        ?.asked ?? 'stdin';
    return [
      {
        session: n.session,
        watcher: n.watcher,
        proxy: n.pid,
        ended: code === undefined ? undefined : { session: n.session, asked, code, signal: null },
      },
    ];
  });
}

/**
 * Wait until every server an agent started through the proxy has ended and been noted, or
 * nothing is left that could note it: an agent may exit while its server is still on its way
 * out, and the cell reads the notes right after. Polls, for at most `timeoutMs`.
 */
export async function proxiesSettled(log: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const pending = () =>
    endings(log, readExitNotes(log).notes).some((e) => !e.ended && (isAlive(e.proxy) || isAlive(e.watcher)));
  while (pending() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
}

/**
 * The shutdown problems of the servers an agent ran through the proxy, from the notes beside
 * the calls log. A started server whose end nobody saw is one: it may have crashed on the way out.
 */
export function proxyStopProblems(log: string): string[] {
  const { notes, unparsed } = readExitNotes(log);
  return [
    ...endings(log, notes).flatMap(({ session, ended }) => {
      if (!ended)
        return [
          `the agent's server session ${session} was never seen to end (the agent killed memeval's proxy, and nothing noted the server's exit), so it may have crashed at shutdown`,
        ];
      // a fault (oversize message, unwritable calls log) is reported where it happened
      if (ended.fault) return [];
      const p = proxyStopProblem(ended);
      return p ? [`the agent's server session ${session} ${p}`] : [];
    }),
    ...unparsed,
  ];
}

/**
 * The first line a server an agent ran through the proxy wrote saying its declared store could
 * not be opened (the proxy notes it as it sees it, so a proxy killed later still told), with the
 * session and stream; undefined when none did.
 */
export function proxyStoreFailure(log: string): string | undefined {
  const n = readExitNotes(log).notes.find(
    (x): x is Extract<ExitNote, { store_failure: string }> => 'store_failure' in x,
  );
  return n && `the agent's server session ${n.session} ${n.stream}: ${n.store_failure}`;
}

/** Why a server an agent started undid setup.store_sql's pins (the first the proxy noted); undefined when none did. */
export function proxyPinsLost(log: string): string | undefined {
  return readExitNotes(log).notes.find((x): x is Extract<ExitNote, { pins_lost: string }> => 'pins_lost' in x)
    ?.pins_lost;
}

/** The file beside the calls log a proxied server writes its stderr to (the proxy reads it from there). */
export function serverStderrFile(log: string, session: number): string {
  return `${log}.stderr-${session}`;
}

/** Past this size the proxy empties the server's stderr file once it has read it (a flood must not fill the disk). */
const STDERR_FILE_CAP = 8 * 1024 * 1024;

/**
 * Follows a server's stderr file: each new chunk goes to the store-failure watch and on to the
 * proxy's own stderr (the agent's view of the server, as before). The server writes the file
 * itself, so a proxy the agent kills never leaves it writing into a closed pipe.
 */
class StderrFollower {
  private offset = 0;
  private ended = false;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly file: string,
    private readonly fd: number,
    private readonly watch: StoreFailureWatch,
    private readonly onFound: () => void,
  ) {
    this.timer = setInterval(() => this.read(), 50);
  }

  read(): void {
    const size = fstatSync(this.fd).size;
    if (size < this.offset) this.offset = 0; // emptied under us
    while (this.offset < size) {
      const buf = Buffer.alloc(Math.min(size - this.offset, 1 << 16));
      const n = readSync(this.fd, buf, 0, buf.length, this.offset);
      if (n <= 0) break;
      this.offset += n;
      this.seen(buf.subarray(0, n));
    }
    if (this.offset >= STDERR_FILE_CAP) {
      truncateSync(this.file, 0);
      this.offset = 0;
    }
  }

  private seen(chunk: Buffer): void {
    const had = this.watch.found;
    this.watch.stderr(chunk.toString('utf8'));
    if (!had && this.watch.found) this.onFound();
    try {
      process.stderr.write(chunk);
    } catch {
      /* the agent stopped reading: the file still has it */
    }
  }

  /** The server has exited: read what is left, test the last line, stop following. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    clearInterval(this.timer);
    this.read();
    const had = this.watch.found;
    this.watch.end();
    if (!had && this.watch.found) this.onFound();
    closeSync(this.fd);
  }
}

const capNoteSchema = z.object({ tool: z.string(), call: z.number(), cap: z.number(), ts: z.string() });

/**
 * How many tools/call the proxy refused over the cap, from its notes beside the calls log. A torn
 * last note counts: the cap was hit when it was written.
 */
export function cappedCalls(log: string): number {
  const { records, torn } = readJsonl(capLog(log), capNoteSchema);
  return records.length + (torn === undefined ? 0 : 1);
}

const launchSchema = z.object({
  command: z.string().min(1),
  args: z.array(z.string()),
  env: z.record(z.string(), z.string()),
  cwd: z.string(),
  /** the declaration's server.store_failure patterns */
  store_failure: z.array(z.string()).optional(),
  /** the cell's store-pins.json (mcp/store-pins.ts), when setup.store_sql pinned the store */
  pins: z.string().optional(),
});
export type LaunchFile = z.infer<typeof launchSchema>;

/**
 * The server launch memeval hands its proxy through a file, not the agent's config: agents
 * merge their own environment (API keys included) into an MCP server's, and some strip
 * NODE_OPTIONS. The proxy starts the server with exactly this environment, whatever it got.
 */
export function writeLaunchFile(file: string, launch: LaunchFile): void {
  writeFileSync(file, JSON.stringify(launchSchema.parse(launch), null, 2), { mode: 0o600 });
}

export function readLaunchFile(file: string): LaunchFile {
  return launchSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
}

/** Exit code of a proxy that stopped its server: an oversize message, or a calls log it cannot write. */
export const PROXY_FAULT_EXIT = 75;

/** Agents start the server themselves, once per invocation: number those sessions in order. */
function nextSession(log: string): number {
  const counter = `${log}.sessions`;
  const n = (existsSync(counter) ? Number(readFileSync(counter, 'utf8')) || 0 : 0) + 1;
  writeFileSync(counter, String(n));
  return n;
}

/**
 * In a PID namespace, the server runs under a shell that is PID 1 there and writes the server's
 * exit status to `status` when it ends: the namespace outlives a proxy the agent kills, and the
 * server's stdin closes when the proxy dies, so its exit is still written. Without a namespace
 * the shell would die with the SIGTERM the server gets and hide its status: the server runs as it is.
 */
function statusRecorded(command: string, args: string[], status: string): [string, string[]] {
  if (isolationMode().mode !== 'pid-namespace') return [command, args];
  return ['/bin/sh', ['-c', '"$@"; s=$?; echo "$s" > "$0"; exit "$s"', status, command, ...args]];
}

/**
 * A stdio MCP proxy: the agent talks to us as if we were the server; we forward every
 * message to the real server and log each tools/call with the same recorder the
 * deterministic layer uses. Resolves with the server's exit code.
 */
export function runProxy(o: ProxyOptions): Promise<number> {
  const proxy = new ProxySession(o);
  process.stdin.on('data', (chunk: Buffer) => proxy.fromAgent(chunk));
  process.stdin.on('end', () => proxy.stop('stdin'));
  process.stdout.on('error', () => proxy.stop('SIGTERM')); // the agent went away
  onSignal((sig) => proxy.stop(sig));
  return proxy.ended;
}

/** One server the agent started through the proxy: its process, its recorder, and how it ended. */
class ProxySession {
  /** the server's exit code, once it has exited (127 when it could not start) */
  readonly ended: Promise<number>;
  private readonly session: number;
  private readonly recorder: CallRecorder;
  private readonly tag = newOwnerTag();
  private readonly child: ChildProcess;
  private readonly follower: StderrFollower;
  private readonly storeWatch: StoreFailureWatch;
  private readonly max: number;
  private readonly fromClient: LineFramer;
  private readonly fromServer: LineFramer;
  /** how the agent asked the server to stop: its stdin closed, or a signal to the proxy */
  private asked: string | undefined;
  private took: Took = 'exit';
  /** why the proxy stopped the server itself: an oversize message, a calls log it cannot write */
  private fault: string | undefined;
  private calls = 0;
  /** the pins as they are before this server starts; checked again before its first answer is passed on */
  private pinsHeld: ReturnType<PinWatch['before']> | undefined;

  constructor(private readonly o: ProxyOptions) {
    this.session = o.session === 'auto' ? nextSession(o.log) : o.session;
    this.recorder = new CallRecorder(o.log, this.session, 'agent');
    this.pinsHeld = o.pins?.before();
    this.max = o.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.fromClient = new LineFramer(this.max);
    this.fromServer = new LineFramer(this.max);
    this.storeWatch = new StoreFailureWatch(storeFailureRegexes(o.storeFailures ?? []));
    ({ child: this.child, follower: this.follower } = this.start());
    this.child.stdin!.on('error', () => {});
    this.child.stdout!.on('data', (chunk: Buffer) => this.fromServerChunk(chunk));
    this.ended = new Promise((resolve) => {
      this.child.on('error', (e) => {
        this.follower.end();
        process.stderr.write(`memeval mcp-proxy: cannot start ${o.command}: ${e.message}\n`);
        resolve(127);
      });
      this.child.on('exit', (code, signal) => resolve(this.exited(code, signal)));
    });
  }

  /**
   * Start the server in its own process group (and namespace, where there is one). Its stderr
   * goes to a file it writes itself, which the proxy follows: a line saying its store could not
   * be opened makes the agent's cell an error, as in memeval's own sessions.
   */
  private start(): { child: ChildProcess; follower: StderrFollower } {
    const launch = isolatedCommand(
      ...statusRecorded(this.o.command, this.o.args, statusFile(this.o.log, this.session)),
    );
    const stderrFile = serverStderrFile(this.o.log, this.session);
    const stderrFd = openSync(stderrFile, 'a');
    const child = spawn(launch.command, launch.args, {
      stdio: ['pipe', 'pipe', stderrFd],
      env: { ...(this.o.env ?? process.env), [OWNER_VAR]: this.tag },
      cwd: this.o.cwd,
      detached: true,
    });
    const follower = new StderrFollower(stderrFile, openSync(stderrFile, 'r'), this.storeWatch, () =>
      this.noteStoreFailure(),
    );
    closeSync(stderrFd); // the server holds its own copy
    if (child.pid !== undefined)
      this.note({ session: this.session, started: true, pid: process.pid, watcher: child.pid });
    return { child, follower };
  }

  private note(n: ExitNote): void {
    try {
      appendFileSync(exitLog(this.o.log), JSON.stringify(n) + '\n');
    } catch {
      /* no start note: no exit is expected; no exit note after a start note: the cell says it was not seen */
    }
  }

  private noteStoreFailure(): void {
    const f = this.storeWatch.found;
    if (f) this.note({ session: this.session, store_failure: f.line, stream: f.stream });
  }

  /**
   * The agent's stop request, however it comes, reaches the server as MCP's stdio shutdown:
   * its stdin closes, SIGTERM if it is still there after the grace, then SIGKILL. A signal is
   * not passed on: a server that is PID 1 of its namespace would not get it, and the shell that
   * is PID 1 in its place must live to write the status (see statusRecorded).
   */
  stop(how: string): void {
    if (this.asked) return;
    this.asked = how;
    this.note({ session: this.session, asked: how, stopping: true });
    this.child.stdin!.end();
    const term = setTimeout(() => {
      this.took = 'SIGTERM';
      this.killGroup('SIGTERM');
      const kill = setTimeout(() => {
        this.took = 'SIGKILL';
        this.killGroup('SIGKILL');
      }, STOP_GRACE_MS);
      this.child.once('exit', () => clearTimeout(kill));
    }, STOP_GRACE_MS);
    this.child.once('exit', () => clearTimeout(term));
  }

  private killGroup(sig: NodeJS.Signals): void {
    try {
      process.kill(-this.child.pid!, sig);
    } catch {
      this.child.kill(sig);
    }
  }

  /** The proxy stops the server itself, loudly: the session's evidence cannot be trusted past this. */
  private stopOnFault(fault: string): void {
    this.fault = fault;
    process.stderr.write(`memeval mcp-proxy: ${fault}\n`);
  }

  /** Frames of a chunk; an oversize message ends the session, with the reason logged for the cell. */
  private frames(framer: LineFramer, chunk: Buffer, side: 'agent' | 'server'): Frame[] {
    if (this.fault) return [];
    try {
      return framer.push(chunk);
    } catch (e) {
      if (!(e instanceof OversizeMessage)) throw e;
      this.stopOnFault(
        side === 'server' ? e.message : `the agent sent a JSON-RPC message over the limit (${this.max} bytes)`,
      );
      this.recorder.flushPending(this.fault!);
      this.killGroup('SIGKILL');
      return [];
    }
  }

  /** What the agent sends: recorded and passed on, a tools/call over the cap refused instead. */
  fromAgent(chunk: Buffer): void {
    for (const f of this.frames(this.fromClient, chunk, 'agent')) {
      if (f.kind !== 'message') continue;
      const m: JSONRPCMessage = f.message;
      if (this.refusedOverCap(m)) continue;
      this.child.stdin!.write(serializeMessage(this.recorder.outgoing(m)));
    }
  }

  /** The cap memeval enforces for every agent, whatever its own turn switch does: a refusal, noted. */
  private refusedOverCap(m: JSONRPCMessage): boolean {
    const cap = this.o.maxCalls;
    if (!('method' in m && m.method === 'tools/call' && 'id' in m && cap !== undefined && ++this.calls > cap))
      return false;
    const tool = String((m.params as { name?: string } | undefined)?.name ?? '');
    appendFileSync(
      capLog(this.o.log),
      JSON.stringify({ tool, call: this.calls, cap, ts: new Date().toISOString() }) + '\n',
    );
    process.stdout.write(
      serializeMessage({
        jsonrpc: '2.0',
        id: m.id,
        error: { code: -32000, message: `memeval: turn cap reached (${cap} memory calls per prompt; --max-turns)` },
      }),
    );
    return true;
  }

  /** What the server sends: recorded and passed on; its first answer checks the pins. */
  private fromServerChunk(chunk: Buffer): void {
    for (const f of this.frames(this.fromServer, chunk, 'server')) {
      if (f.kind !== 'message') {
        // not JSON-RPC: nothing we can forward faithfully, but it may say the store could not be opened
        const had = this.storeWatch.found;
        this.storeWatch.stdout(f.line);
        if (!had && this.storeWatch.found) this.noteStoreFailure();
        continue;
      }
      this.recorder.incoming(f.message);
      if (this.pinsHeld && ('result' in f.message || 'error' in f.message)) {
        // its first answer (the handshake): a store it rebuilt at start is rebuilt by now, and the agent has written nothing yet
        const lost = this.o.pins!.after(`the agent's server session ${this.session}`, this.pinsHeld);
        this.pinsHeld = undefined;
        if (lost) this.note({ session: this.session, pins_lost: lost });
      }
      const writeError = this.recorder.writeError;
      if (writeError && !this.fault) {
        // an agent run without its calls log is no evidence: stop here, loudly
        this.stopOnFault(
          `cannot write the calls log ${this.o.log} (${(writeError as NodeJS.ErrnoException).code ?? writeError.message})`,
        );
        this.killGroup('SIGKILL');
        return;
      }
      process.stdout.write(serializeMessage(f.message));
    }
  }

  /** The server exited: note how, clear what it left behind, and say what the proxy exits with. */
  private exited(code: number | null, signal: NodeJS.Signals | null): number {
    this.follower.end();
    this.recorder.flushPending(`${this.fault ?? describeExit({ code, signal })} before answering`);
    const { session, asked, took, fault } = this;
    this.note({ session, asked: asked ?? null, took, code, signal, ...(fault ? { fault } : {}) });
    this.killGroup('SIGKILL'); // whatever the server left in its group
    killTagged(this.tag); // and in its own sessions
    return fault ? PROXY_FAULT_EXIT : (code ?? 1);
  }
}
