import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** sha256 of a file's bytes, in hex: what a run records of each file it read, and what is compared with it later. */
export function sha256File(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}
