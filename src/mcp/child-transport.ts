import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { track, untrack, killTree } from '../fixture/processes.js';
import type { CallRecorder } from './recorder.js';

export interface ChildSpec {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  stderrFile?: string;
}

const STDERR_TAIL = 4000;

/**
 * MCP stdio client transport over a child process in its own process group, so the
 * whole tree can be killed, with a stderr tail for error reports and a call recorder.
 */
export class ChildTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private child?: ChildProcess;
  private readBuffer = new ReadBuffer();
  private stderrTail = '';
  private stderrLog?: WriteStream;
  private exited?: Promise<void>;
  exitInfo?: { code: number | null; signal: NodeJS.Signals | null };

  constructor(
    private readonly spec: ChildSpec,
    private readonly recorder?: CallRecorder,
  ) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  stderr(): string {
    return this.stderrTail;
  }

  async start(): Promise<void> {
    const child = spawn(this.spec.command, this.spec.args, {
      cwd: this.spec.cwd,
      env: this.spec.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    this.child = child;
    if (this.spec.stderrFile) this.stderrLog = createWriteStream(this.spec.stderrFile);
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.exitInfo = { code, signal };
        untrack(child);
        this.recorder?.flushPending(`server exited (code ${code}, signal ${signal}) before answering`);
        resolve();
        this.onclose?.();
      });
      // a command that cannot be spawned never emits 'exit': without this, close() waits forever
      child.once('error', (e) => {
        if (this.exitInfo !== undefined) return;
        this.exitInfo = { code: null, signal: null };
        this.stderrTail += `cannot start ${this.spec.command}: ${e.message}\n`;
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
      this.readBuffer.append(chunk);
      for (;;) {
        let msg: JSONRPCMessage | null;
        try {
          msg = this.readBuffer.readMessage();
        } catch (e) {
          this.onerror?.(new Error(`server wrote something that is not JSON-RPC: ${(e as Error).message}`));
          continue;
        }
        if (!msg) break;
        this.recorder?.incoming(msg);
        this.onmessage?.(msg);
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      this.stderrLog?.write(chunk);
      this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL);
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const out = this.recorder ? this.recorder.outgoing(message) : message;
    const stdin = this.child?.stdin;
    if (!stdin || stdin.destroyed) throw new Error('server is not running');
    await new Promise<void>((resolve, reject) => {
      stdin.write(serializeMessage(out), (err) => (err ? reject(err) : resolve()));
    });
  }

  /** Close stdin and wait for a clean exit; escalate to SIGTERM, then SIGKILL, on the group. */
  async close(graceMs = 2000): Promise<void> {
    const child = this.child;
    if (!child || !this.exited) return;
    if (this.exitInfo === undefined) {
      child.stdin?.end();
      await killTree(child, this.exited, graceMs);
    }
    await this.exited;
    await new Promise<void>((r) => (this.stderrLog ? this.stderrLog.end(r) : r()));
  }
}
