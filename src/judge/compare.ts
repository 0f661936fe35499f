import type { Comparator } from '../scenario/schema.js';

const SYMBOL: Record<Comparator, string> = { eq: '=', ne: '!=', gt: '>', gte: '>=', lt: '<', lte: '<=' };

export function describeExpected(op: Comparator, value: unknown): string {
  return `${SYMBOL[op]} ${JSON.stringify(value)}`;
}

/**
 * Why `actual` cannot be compared with `expected`, or undefined when it can. NULL is no value,
 * and a number compared with something that is not one would be compared as text ("null" > "5"
 * holds), so a read of nothing or of the wrong column would decide a verdict.
 */
export function incomparable(actual: unknown, expected: unknown): string | undefined {
  if (actual === null || actual === undefined)
    return 'the value is NULL (nothing was read: an aggregate over no row, or a missing field)';
  const a = typeof actual === 'bigint' ? Number(actual) : actual;
  if (
    typeof expected === 'number' &&
    !(typeof a === 'number' || (typeof a === 'string' && a.trim() !== '' && !isNaN(Number(a))))
  )
    return `the value ${JSON.stringify(a)} is not a number, so it cannot be compared with ${expected}`;
  return undefined;
}

/** Compare numerically when both sides are numbers (or numeric strings), else as text. */
export function compare(actual: unknown, op: Comparator, expected: number | string): boolean {
  const a = typeof actual === 'bigint' ? Number(actual) : actual;
  const numeric =
    typeof expected === 'number' &&
    (typeof a === 'number' || (typeof a === 'string' && a.trim() !== '' && !isNaN(Number(a))));
  const x: number | string = numeric ? Number(a) : String(a);
  const y: number | string = numeric ? expected : String(expected);
  switch (op) {
    case 'eq':
      return x === y;
    case 'ne':
      return x !== y;
    case 'gt':
      return x > y;
    case 'gte':
      return x >= y;
    case 'lt':
      return x < y;
    case 'lte':
      return x <= y;
  }
}
