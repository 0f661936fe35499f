import type { TurnRecord } from './results.js';

/**
 * How a prompt ended, in one word budgets can name: completed, max_turns, timeout, invalid (it
 * did not really run, for another reason) or error (a failed exit nothing else explains).
 */
export function finishReason(t: Pick<TurnRecord, 'invalid' | 'exit_code'>): string {
  if (t.invalid.some((w) => w.startsWith('max turns hit'))) return 'max_turns';
  if (t.invalid.some((w) => w.startsWith('timed out'))) return 'timeout';
  if (t.invalid.length) return 'invalid';
  return t.exit_code === 0 ? 'completed' : 'error';
}
