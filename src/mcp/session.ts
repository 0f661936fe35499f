import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import type { Fixture } from '../fixture/fixture.js';
import { isolatedEnv } from '../fixture/fixture.js';
import { fillString, fillTemplate } from '../util/template.js';
import { MemevalError, messageOf } from '../util/errors.js';
import { MEMEVAL_VERSION, PROJECT_ROOT } from '../util/paths.js';
import { ChildTransport, stopProblem, stopWarning, type KillEnd } from './child-transport.js';
import { sandboxLaunch, type LoopbackBridge, type NetworkMode } from '../fixture/sandbox.js';
import { CallRecorder, META_OP, META_OP_CALL, META_STAGE } from './recorder.js';
import { storeFailurePatterns } from './store-failure.js';
import { binCommand } from '../util/processes.js';
import type { ResolvedBin } from '../targets/resolve-bin.js';
import type { TargetDecl } from '../targets/schema.js';

export interface ToolResult {
  ok: boolean;
  text: string;
  ms: number;
}

export interface SessionOptions {
  decl: TargetDecl;
  bin: ResolvedBin;
  fixture: Fixture;
  session: number;
  logFile?: string;
  stderrFile?: string;
  /** where stdout lines that are not JSON-RPC are recorded (see noise.ts) */
  noiseFile?: string;
  /** extra environment for the server (e.g. the network guard preload) */
  env?: Record<string, string>;
  /** loopback services of the host the server must still reach from inside its namespace */
  bridges?: LoopbackBridge[];
}

/**
 * Command, args, env and cwd that start a target's server inside a fixture: the scrubbed
 * fixture environment only, inside a loopback-only network namespace where the machine allows
 * (`network` says which guard is in force).
 */
export function serverLaunch(
  decl: TargetDecl,
  bin: ResolvedBin,
  fixture: Fixture,
  extraEnv: Record<string, string> = {},
  bridges: LoopbackBridge[] = [],
) {
  const vars = {
    ...fixture.vars,
    package_dir: bin.packageDir,
    node: process.execPath,
    memeval_dir: resolve(PROJECT_ROOT),
  };
  const env = isolatedEnv(fixture, {
    ...Object.fromEntries(Object.entries(decl.server.env).map(([k, v]) => [k, fillString(v, vars)])),
    ...extraEnv,
  });
  const cwd = fillString(decl.server.cwd, vars);
  if (decl.server.command)
    return sandboxLaunch(
      {
        command: fillString(decl.server.command, vars),
        args: decl.server.args.map((a) => fillString(a, vars)),
        env,
        cwd,
      },
      bridges,
    );
  return sandboxLaunch(
    {
      ...binCommand(
        bin.file,
        decl.server.args.map((a) => fillString(a, vars)),
      ),
      env,
      cwd,
    },
    bridges,
  );
}

/** A running target server with an MCP client attached through a call recorder. */
export class TargetSession {
  readonly recorder: CallRecorder;
  /** messages the client could not accept (not JSON-RPC, an answer to an id never asked) */
  protocolErrors: string[] = [];
  private constructor(
    private readonly client: Client,
    private readonly transport: ChildTransport,
    recorder: CallRecorder,
    private readonly callTimeoutMs: number,
    readonly startMs: number,
    /** which network guard was in force for this server */
    readonly network: NetworkMode,
  ) {
    this.recorder = recorder;
  }

  static async start(o: SessionOptions): Promise<TargetSession> {
    const t0 = performance.now();
    const recorder = new CallRecorder(o.logFile, o.session, 'step');
    const launch = serverLaunch(o.decl, o.bin, o.fixture, o.env, o.bridges);
    const transport = new ChildTransport(
      {
        ...launch,
        stderrFile: o.stderrFile,
        noiseFile: o.noiseFile,
        maxMessageBytes: o.decl.server.max_message_bytes,
        storeFailures: storeFailurePatterns(o.decl),
      },
      recorder,
    );
    const client = new Client({ name: 'memeval', version: MEMEVAL_VERSION });
    const protocolErrors: string[] = [];
    client.onerror = (e) => protocolErrors.push(e.message);
    try {
      await client.connect(transport, { timeout: o.decl.server.startup_timeout_ms });
    } catch (e) {
      await transport.close(500).catch(() => {});
      throw targetError(transport, `server did not start: ${transport.failure() ?? messageOf(e)}`, e);
    }
    const session = new TargetSession(
      client,
      transport,
      recorder,
      o.decl.server.call_timeout_ms,
      performance.now() - t0,
      launch.network,
    );
    session.protocolErrors = protocolErrors;
    return session;
  }

  /** stdout lines that were not JSON-RPC (skipped by the transport, kept for reports and the fuzzer) */
  get noiseLines(): readonly string[] {
    return this.transport.noise.lines;
  }

  /** Each tool's input schema as the server lists it. */
  async toolSchemas(): Promise<Map<string, Record<string, unknown>>> {
    try {
      const r = await this.client.listTools(undefined, { timeout: this.callTimeoutMs });
      return new Map(r.tools.map((t) => [t.name, t.inputSchema as Record<string, unknown>]));
    } catch (e) {
      throw targetError(this.transport, `tools/list: ${this.transport.failure() ?? messageOf(e)}`, e);
    }
  }

  /** How the server exited, if it has (undefined while it runs). */
  get exitInfo(): { code: number | null; signal: NodeJS.Signals | null } | undefined {
    return this.transport.exitInfo;
  }

  async listTools(): Promise<string[]> {
    try {
      const r = await this.client.listTools(undefined, { timeout: this.callTimeoutMs });
      return r.tools.map((t) => t.name);
    } catch (e) {
      throw targetError(this.transport, `tools/list: ${this.transport.failure() ?? messageOf(e)}`, e);
    }
  }

  /** Call one tool. A tool-level error (isError) is a refusal, not an exception; a dead server is. */
  async callTool(
    tool: string,
    args: Record<string, unknown>,
    label: { op?: string; opCall?: number; stage: string },
  ): Promise<ToolResult> {
    const t0 = performance.now();
    try {
      const r = await this.client.callTool(
        {
          name: tool,
          arguments: args,
          _meta: {
            [META_OP]: label.op ?? null,
            [META_STAGE]: label.stage,
            ...(label.opCall !== undefined ? { [META_OP_CALL]: label.opCall } : {}),
          },
        },
        undefined,
        { timeout: this.callTimeoutMs },
      );
      const content = Array.isArray(r.content) ? r.content : [];
      const text = content
        .map((c: { type: string; text?: string }) => (c.type === 'text' ? c.text : JSON.stringify(c)))
        .join('\n');
      return { ok: !r.isError, text, ms: performance.now() - t0 };
    } catch (e) {
      const err = e as Error & { code?: number };
      // MCP "invalid params" / tool-not-found come back as JSON-RPC errors: the server answered, it refused
      const failure = this.transport.failure();
      if (failure === undefined && typeof err.code === 'number' && err.code !== -32001 && err.code !== -32000)
        return { ok: false, text: err.message, ms: performance.now() - t0 };
      // "Connection closed" says nothing: name the exit code, signal or fault instead
      throw targetError(this.transport, `${tool}: ${failure ?? err.message}`, e);
    }
  }

  stderr(): string {
    return this.transport.stderr();
  }

  /** The first line this server wrote saying its declared store could not be opened (server.store_failure). */
  storeFailure(): string | undefined {
    const f = this.transport.storeFailure();
    return f && `${f.stream}: ${f.line}`;
  }

  async close(): Promise<void> {
    await this.transport.close();
  }

  /** Kill the server without asking it to stop (a kill step): see ChildTransport.kill. */
  kill(signal: 'SIGKILL' | 'SIGTERM'): Promise<KillEnd> {
    return this.transport.kill(signal);
  }

  /** Mark the server as about to be killed by memeval (see ChildTransport.armKill); the process group to signal. */
  armKill(signal: 'SIGKILL' | 'SIGTERM'): number | undefined {
    return this.transport.armKill(signal);
  }

  /** The signal memeval killed this server with, if it did. */
  get killedBy(): NodeJS.Signals | undefined {
    return this.transport.killedBy;
  }

  /** Write only the first `bytes` bytes of the next tool call's request; resolves once they are written. */
  armPartial(bytes: number): Promise<{ sent: number; of: number }> {
    return this.transport.armPartial(bytes);
  }

  /** Resolves when the server next answers a tool call (a refusal too), or has exited. */
  nextAnswer(): Promise<'answered' | 'exited'> {
    return new Promise((resolve) => {
      if (this.transport.exitInfo) return resolve('exited');
      const stop = this.recorder.onRecord((rec, answered) => {
        if (rec.method !== undefined && rec.method !== 'tools/call') return;
        stop();
        resolve(answered ? 'answered' : 'exited');
      });
    });
  }

  /** After close(): what was wrong with how the server ended (a crash at shutdown), if anything. */
  stopProblem(): string | undefined {
    return stopProblem(this.transport.stopped);
  }

  /** After close(): a server that had to be SIGKILLed. */
  stopWarning(): string | undefined {
    return stopWarning(this.transport.stopped);
  }
}

/** How a target failed: it exited (or could not be spawned), did not answer in time, or broke the protocol. */
export type TargetFailureKind = 'exit' | 'timeout' | 'protocol';

const TARGET_CODES = { exit: 'TARGET_EXIT', timeout: 'TARGET_TIMEOUT', protocol: 'TARGET_PROTOCOL' } as const;
export type TargetErrorCode = (typeof TARGET_CODES)[TargetFailureKind];

/** Whether an error code (a cell's `error_code`) says the target failed, not memeval or its input. */
export function isTargetCode(code: string | undefined): code is TargetErrorCode {
  return Object.values(TARGET_CODES).includes(code as TargetErrorCode);
}

/** The target crashed, hung or spoke garbage; carries the tail of its stderr. */
export class TargetError extends MemevalError {
  declare readonly code: TargetErrorCode;

  constructor(
    readonly kind: TargetFailureKind,
    message: string,
    readonly stderrTail: string,
    /** how the server process ended, when it has */
    readonly serverExit?: { code: number | null; signal: NodeJS.Signals | null },
    options?: ErrorOptions,
  ) {
    super(TARGET_CODES[kind], message, options);
  }
}

/**
 * A failed request as a TargetError. A fault memeval stopped listening for (an oversize message)
 * is the protocol's even though memeval then killed the server. The SDK's timeout means the
 * server was still running when it fired, whatever memeval did to it after; otherwise a server
 * that is gone exited.
 */
function targetError(transport: ChildTransport, message: string, cause: unknown): TargetError {
  const kind: TargetFailureKind = transport.fault
    ? 'protocol'
    : (cause as { code?: unknown } | undefined)?.code === ErrorCode.RequestTimeout
      ? 'timeout'
      : transport.exitInfo
        ? 'exit'
        : 'protocol';
  return new TargetError(kind, message, transport.stderr(), transport.exitInfo, { cause });
}

export { fillTemplate };
