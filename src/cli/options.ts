import { InvalidArgumentError } from 'commander';

/** A whole-number option of 1 or more; here, not in main.ts, so the lean proxy entry can parse its flags without the whole CLI. */
export function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a whole number of 1 or more');
  return n;
}
