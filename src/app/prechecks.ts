import { mkdirSync, rmSync, statfsSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InputError, messageOf } from '../util/errors.js';

/** Less free space than this in --out is refused up front: stores, logs and evidence need room. */
export const MIN_FREE_BYTES = 16 * 1024 * 1024;

const code = (e: unknown) => (e as NodeJS.ErrnoException).code ?? messageOf(e);

/** A folder memeval must write to: it exists (or can be made), takes a file, and has room. */
function checkWritable(dir: string, what: string, fix: string): void {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (e) {
    throw new InputError(`${what}: cannot create ${dir} (${code(e)}); ${fix}`);
  }
  const probe = join(dir, `.memeval-write-check-${process.pid}`);
  try {
    writeFileSync(probe, 'ok');
  } catch (e) {
    throw new InputError(`${what}: ${dir} is not writable (${code(e)}); ${fix}`);
  } finally {
    rmSync(probe, { force: true });
  }
  try {
    const fs = statfsSync(dir);
    const free = fs.bavail * fs.bsize;
    if (free < MIN_FREE_BYTES)
      throw new InputError(
        `${what}: only ${Math.floor(free / 1024)} KiB free in ${dir} (memeval needs ${MIN_FREE_BYTES / 1024 / 1024} MiB); ${fix}`,
      );
  } catch (e) {
    if (e instanceof InputError) throw e; // statfs itself unsupported: the write check stands
  }
}

/** Before anything runs: the run dir and the temp dir (fixtures) are usable; exit 3 otherwise. */
export function checkRunDirs(outDir: string): void {
  checkWritable(outDir, '--out', 'pass a writable folder with room');
  const tmp = tmpdir();
  try {
    if (!statSync(tmp).isDirectory())
      throw new InputError(`TMPDIR: ${tmp} is not a folder; set TMPDIR to a writable folder (fixtures are made there)`);
  } catch (e) {
    if (e instanceof InputError) throw e;
    throw new InputError(
      `TMPDIR: ${tmp} does not exist (${code(e)}); set TMPDIR to a writable folder (fixtures are made there)`,
    );
  }
  checkWritable(tmp, 'TMPDIR', 'set TMPDIR to a writable folder with room (fixtures are made there)');
}
