import { closeSync, openSync, writeSync } from 'node:fs';

/** How much of a server's stderr a cell keeps per session: this much from the start and from the end. */
export const STDERR_HEAD_BYTES = 64 * 1024;
export const STDERR_TAIL_BYTES = 64 * 1024;
const RECENT_CHARS = 4000;

/**
 * A log that keeps the head and the tail of a stream and counts what it dropped in between,
 * so a flooding server cannot fill the run dir. Writes are synchronous, so what was kept is on
 * disk whenever the process is told to stop.
 */
export class CappedLog {
  private fd?: number;
  private headLeft: number;
  private tail: Buffer[] = [];
  private tailSize = 0;
  private total = 0;
  private recent = '';
  private failed = false;
  private closed = false;

  constructor(
    private readonly file: string | undefined,
    private readonly headBytes = STDERR_HEAD_BYTES,
    private readonly tailBytes = STDERR_TAIL_BYTES,
  ) {
    this.headLeft = headBytes;
  }

  write(chunk: Buffer): void {
    this.total += chunk.length;
    this.recent = (this.recent + chunk.toString('utf8')).slice(-RECENT_CHARS);
    if (this.headLeft > 0) {
      const head = chunk.subarray(0, this.headLeft);
      this.headLeft -= head.length;
      this.append(head);
      chunk = chunk.subarray(head.length);
    }
    if (!chunk.length) return;
    this.tail.push(chunk);
    this.tailSize += chunk.length;
    while (this.tail.length > 1 && this.tailSize - this.tail[0].length >= this.tailBytes)
      this.tailSize -= this.tail.shift()!.length;
  }

  /** Bytes seen that are kept neither in the head nor in the tail. */
  get dropped(): number {
    return Math.max(0, this.total - (this.headBytes - this.headLeft) - Math.min(this.tailSize, this.tailBytes));
  }

  /** The last few thousand characters, for error reasons, saying how much was dropped. */
  text(): string {
    return this.dropped ? `[… ${this.dropped} bytes of stderr dropped …]\n${this.recent}` : this.recent;
  }

  private append(b: Buffer): void {
    if (!b.length || !this.file || this.failed) return;
    try {
      this.fd ??= openSync(this.file, 'a');
      writeSync(this.fd, b);
    } catch {
      this.failed = true; // a full disk must not take the cell down over a log
    }
  }

  /** Write the tail (after a line with the dropped count) and close the file. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    const tail = Buffer.concat(this.tail).subarray(-this.tailBytes);
    const dropped = this.dropped;
    this.tail = [];
    this.tailSize = 0;
    if (dropped) this.append(Buffer.from(`\n[… memeval dropped ${dropped} bytes of stderr here …]\n`));
    this.append(tail);
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
