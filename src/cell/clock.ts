/** The cell's stage timings (`timings_ms`) and its whole duration, read from one monotonic clock. */
export class StageClock {
  private readonly t0 = performance.now();
  private mark = this.t0;
  readonly laps: Record<string, number> = {};

  /** the time since the last lap belongs to this stage */
  lap(stage: string): void {
    const now = performance.now();
    this.laps[stage] = Math.round(now - this.mark);
    this.mark = now;
  }

  /** start the next lap now: the time since the last lap belongs to no stage */
  restart(): void {
    this.mark = performance.now();
  }

  totalMs(): number {
    return Math.round(performance.now() - this.t0);
  }
}
