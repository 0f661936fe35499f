import { InvalidArgumentError } from 'commander';

/** What commands share with the entry: the exit code to end with, and how to quit at once. */
export interface CliContext {
  exitCode: number;
  hardExit: (code: number) => never;
}

export function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a whole number of 1 or more');
  return n;
}

export function nonNegativeInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a whole number of 0 or more');
  return n;
}

export function unitInterval(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1)
    throw new InvalidArgumentError('expected a number from 0 to 1, e.g. 0.7');
  return n;
}

/** Repeatable, comma-separated list options (`--scenario a,b --scenario c`). */
export function collectList(value: string, prev: string[] = []): string[] {
  return [
    ...prev,
    ...value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  ];
}
