import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { CallRecorder } from './recorder.js';

export interface ProxyOptions {
  log: string;
  /** a number, or "auto": one more than the last proxy that logged to this file */
  session: number | 'auto';
  command: string;
  args: string[];
  /** the server's working directory (default: the proxy's) */
  cwd?: string;
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
  const child = spawn(o.command, o.args, { stdio: ['pipe', 'pipe', 'inherit'], env: process.env, cwd: o.cwd });
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
  process.stdin.on('data', (chunk: Buffer) => {
    fromClient.append(chunk);
    drain(fromClient, (m) => child.stdin.write(serializeMessage(recorder.outgoing(m))));
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
