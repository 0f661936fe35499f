import type { Scenario } from './schema.js';

/** Longest setup file path, and longest path component, that every file system here takes. */
const MAX_PATH = 1024;
const MAX_NAME = 255;

/**
 * Setup file paths the fixture could not write, or would write somewhere else than meant:
 * empty or `.` paths, NUL and control characters, over-long names, a path that is both a file
 * and a folder (`a` and `a/b`), and the same file twice. Problems as `field: message`.
 */
export function checkSetupFiles(scenario: Scenario): string[] {
  const problems: string[] = [];
  const files = new Map<string, number>();
  const dirs = new Map<string, number>();
  scenario.setup.files.forEach((f, i) => {
    const field = `setup.files[${i}].path`;
    const bad = (why: string) => problems.push(`${field}: ${JSON.stringify(f.path.slice(0, 80))} ${why}`);
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u001f]/.test(f.path)) return bad('contains a NUL or control character');
    if (Buffer.byteLength(f.path) > MAX_PATH) return bad(`is longer than ${MAX_PATH} bytes`);
    const parts = f.path.split(/[\\/]/).filter((p) => p !== '' && p !== '.');
    if (!parts.length) return bad('names no file; give a relative file path such as "notes/todo.md"');
    if (parts.some((p) => Buffer.byteLength(p) > MAX_NAME)) return bad(`has a name longer than ${MAX_NAME} bytes`);
    if (f.path.endsWith('/') || f.path.endsWith('\\')) return bad('ends with a separator; name a file, not a folder');
    const norm = parts.join('/');
    const twice = files.get(norm);
    if (twice !== undefined) return bad(`is the same file as setup.files[${twice}]`);
    const asDir = dirs.get(norm);
    if (asDir !== undefined) return bad(`is a file, but setup.files[${asDir}] puts a file inside it`);
    for (let k = 1; k < parts.length; k++) {
      const prefix = parts.slice(0, k).join('/');
      const asFile = files.get(prefix);
      if (asFile !== undefined)
        return bad(`puts a file inside "${prefix}", which setup.files[${asFile}] writes as a file`);
    }
    files.set(norm, i);
    for (let k = 1; k < parts.length; k++)
      if (!dirs.has(parts.slice(0, k).join('/'))) dirs.set(parts.slice(0, k).join('/'), i);
  });
  return problems;
}
