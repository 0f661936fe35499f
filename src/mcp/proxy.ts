import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { CallRecorder } from './recorder.js';

export interface ProxyOptions {
  log: string;
  /** a number, or "auto": one more than the last proxy that logged to this file */
  session: number | 'auto';
  command: string;
  args: string[];
  /** the server's working directory (default: the proxy's) */
  cwd?: string;
  /** the server's whole environment; absent = the proxy's own (manual use only) */
  env?: Record<string, string>;
  /** refuse tools/call past this many in this proxy session (one agent prompt), noting each refusal */
  maxCalls?: number;
}

/** The file beside the calls log where the proxy notes each tools/call refused by the cap. */
export function capLog(log: string): string {
  return `${log}.capped`;
}

const launchSchema = z.object({
  command: z.string().min(1),
  args: z.array(z.string()),
  env: z.record(z.string(), z.string()),
  cwd: z.string(),
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

/** Agents start the server themselves, once per invocation: number those sessions in order. */
function nextSession(log: string): number {
  const counter = `${log}.sessions`;
  const n = (existsSync(counter) ? Number(readFileSync(counter, 'utf8')) || 0 : 0) + 1;
  writeFileSync(counter, String(n));
  return n;
}

/**
 * A stdio MCP proxy: the agent talks to us as if we were the server; we forward every
 * message to the real server and log each tools/call with the same recorder the
 * deterministic layer uses. Resolves with the server's exit code.
 */
export function runProxy(o: ProxyOptions): Promise<number> {
  const recorder = new CallRecorder(o.log, o.session === 'auto' ? nextSession(o.log) : o.session, 'agent');
  const child = spawn(o.command, o.args, { stdio: ['pipe', 'pipe', 'inherit'], env: o.env ?? process.env, cwd: o.cwd });
  const fromClient = new ReadBuffer();
  const fromServer = new ReadBuffer();
  const drain = (buf: ReadBuffer, onMsg: (m: JSONRPCMessage) => void) => {
    for (;;) {
      let m: JSONRPCMessage | null;
      try {
        m = buf.readMessage();
      } catch {
        continue; // not JSON-RPC: nothing we can forward faithfully
      }
      if (!m) return;
      onMsg(m);
    }
  };
  let calls = 0;
  process.stdin.on('data', (chunk: Buffer) => {
    fromClient.append(chunk);
    drain(fromClient, (m) => {
      if ('method' in m && m.method === 'tools/call' && 'id' in m && o.maxCalls !== undefined && ++calls > o.maxCalls) {
        // the cap memeval enforces for every agent, whatever its own turn switch does
        const tool = String((m.params as { name?: string } | undefined)?.name ?? '');
        appendFileSync(capLog(o.log), JSON.stringify({ tool, call: calls, cap: o.maxCalls, ts: new Date().toISOString() }) + '\n');
        process.stdout.write(serializeMessage({ jsonrpc: '2.0', id: m.id, error: { code: -32000, message: `memeval: turn cap reached (${o.maxCalls} memory calls per prompt; --max-turns)` } }));
        return;
      }
      child.stdin.write(serializeMessage(recorder.outgoing(m)));
    });
  });
  process.stdin.on('end', () => child.stdin.end());
  child.stdin.on('error', () => {});
  child.stdout.on('data', (chunk: Buffer) => {
    fromServer.append(chunk);
    drain(fromServer, (m) => {
      recorder.incoming(m);
      process.stdout.write(serializeMessage(m));
    });
  });
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(sig, () => child.kill(sig));
  return new Promise((resolve) => {
    child.on('error', (e) => {
      process.stderr.write(`memeval mcp-proxy: cannot start ${o.command}: ${e.message}\n`);
      resolve(127);
    });
    child.on('exit', (code, signal) => {
      recorder.flushPending(`server exited (code ${code}, signal ${signal}) before answering`);
      resolve(code ?? 1);
    });
  });
}
