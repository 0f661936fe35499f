import type { Comparator } from '../scenario/schema.js';

const SYMBOL: Record<Comparator, string> = { eq: '=', ne: '!=', gt: '>', gte: '>=', lt: '<', lte: '<=' };

export function describeExpected(op: Comparator, value: unknown): string {
  return `${SYMBOL[op]} ${JSON.stringify(value)}`;
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
