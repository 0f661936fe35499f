import { messageOf } from '../util/errors.js';
/**
 * Steps that must run however a cell ends (a throw, an interrupt, a judge error): registered as
 * resources are made, run last-in first-out, each one even when an earlier one failed.
 */
export class Teardown {
  private steps: { name: string; fn: () => Promise<unknown> | unknown }[] = [];
  readonly failures: string[] = [];

  add(name: string, fn: () => Promise<unknown> | unknown): void {
    this.steps.push({ name, fn });
  }

  async run(): Promise<void> {
    while (this.steps.length) {
      const { name, fn } = this.steps.pop()!;
      try {
        await fn();
      } catch (e) {
        this.failures.push(`${name}: ${messageOf(e)}`);
      }
    }
  }
}
