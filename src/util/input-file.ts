import { closeSync, fstatSync, openSync, readSync, statSync, constants } from 'node:fs';
import { messageOf } from './errors.js';

/** Scenario and target files are small; anything larger is a mistake (or /dev/zero). */
export const MAX_INPUT_FILE_BYTES = 4 * 1024 * 1024;

/**
 * Read an input file only if it is a regular file of sane size: a FIFO would block forever and a
 * symlink to /dev/zero would grow memory without limit. Returns the text, or a problem (without the file name).
 */
export function readInputFile(file: string): { text: string } | { problem: string } {
  let st;
  try {
    st = statSync(file);
  } catch (e) {
    return { problem: `cannot read file (${(e as NodeJS.ErrnoException).code ?? messageOf(e)})` };
  }
  if (!st.isFile()) return { problem: `not a regular file (${kind(st)}); give a .json or .json5 file` };
  if (st.size > MAX_INPUT_FILE_BYTES)
    return { problem: `file is ${st.size} bytes; input files are limited to ${MAX_INPUT_FILE_BYTES}` };
  let fd: number;
  try {
    // O_NONBLOCK: if the path was swapped for a FIFO since the stat, the open must not hang
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    return { problem: `cannot read file (${(e as NodeJS.ErrnoException).code ?? messageOf(e)})` };
  }
  try {
    if (!fstatSync(fd).isFile()) return { problem: 'not a regular file; give a .json or .json5 file' };
    // unzeroed: only the n bytes read are used; zeroing 4 MiB per file was a tenth of `list`'s start-up
    const buf = Buffer.allocUnsafe(MAX_INPUT_FILE_BYTES + 1);
    let n = 0;
    for (let r; n < buf.length && (r = readSync(fd, buf, n, buf.length - n, null)) > 0;) n += r;
    if (n > MAX_INPUT_FILE_BYTES)
      return { problem: `file is over ${MAX_INPUT_FILE_BYTES} bytes; input files are limited to that` };
    const text = buf.toString('utf8', 0, n);
    if (text.includes('\u0000')) return { problem: 'file contains NUL bytes; is it a text file?' };
    return { text };
  } catch (e) {
    return { problem: `cannot read file (${(e as NodeJS.ErrnoException).code ?? messageOf(e)})` };
  } finally {
    closeSync(fd);
  }
}

function kind(st: import('node:fs').Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'not a file';
}

/** Deepest nesting allowed in an input document: far beyond any real scenario, far below a stack overflow. */
export const MAX_NESTING = 64;

/** The path of the first value nested deeper than `max` levels, or undefined. Iterative: it cannot overflow itself. */
export function tooDeep(value: unknown, max = MAX_NESTING): PropertyKey[] | undefined {
  const stack: { v: unknown; path: PropertyKey[] }[] = [{ v: value, path: [] }];
  while (stack.length) {
    const { v, path } = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (path.length >= max) return path;
    if (Array.isArray(v)) v.forEach((x, i) => stack.push({ v: x, path: [...path, i] }));
    else for (const [k, x] of Object.entries(v)) stack.push({ v: x, path: [...path, k] });
  }
  return undefined;
}
