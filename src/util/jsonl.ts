import { existsSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { z } from 'zod';
import { clip } from './text.js';
import { MemevalError, messageOf } from './errors.js';

/**
 * A JSONL line that is neither a record nor a torn last line: the file is damaged, not cut short,
 * so what it is read for (evidence, a verdict's input) is damaged too.
 */
export class JsonlError extends MemevalError {
  constructor(message: string) {
    super('EVIDENCE', message);
  }
}

export interface JsonlRead<T> {
  records: T[];
  /** the last line, when it has no newline and does not parse: its writer was killed, or the disk filled, mid-record */
  torn?: string;
}

/**
 * Read a JSONL file that memeval, or a process it started, appends to; a missing file holds no
 * records and blank lines are skipped. The one rule for a cut-short file: a last line without
 * its newline that does not parse is torn, left out and returned as `torn` for the caller to
 * report (a caller whose records feed a verdict refuses to judge without it). Any other line
 * that does not parse, or that the schema refuses, throws JsonlError naming file and line.
 */
export function readJsonl<S extends z.ZodType>(file: string, schema: S): JsonlRead<z.infer<S>> {
  if (!existsSync(file)) return { records: [] };
  const text = readFileSync(file, 'utf8');
  const lines = text.split('\n');
  const records: z.infer<S>[] = [];
  for (const [i, line] of lines.entries()) {
    if (!line.trim()) continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (e) {
      // only the last line can lack its newline (split leaves '' after a final '\n')
      if (i === lines.length - 1) return { records, torn: line };
      throw new JsonlError(`${file}:${i + 1}: not JSON (${messageOf(e)}): ${clip(line, 80)}`);
    }
    const r = schema.safeParse(value);
    if (!r.success)
      throw new JsonlError(
        `${file}:${i + 1}: ${r.error.issues.map((x) => `${x.path.join('.') || 'record'}: ${x.message}`).join('; ')}`,
      );
    records.push(r.data);
  }
  return { records };
}

/** How a caller names a torn last line, the same way for every file. */
export function tornLine(file: string, torn: string): string {
  return `${basename(file)} ends in a torn line (a writer stopped mid-record): ${clip(torn, 80)}`;
}
