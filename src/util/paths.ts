import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

/** memeval's own install dir (the folder holding package.json), from src/ or dist/ alike. */
export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export const BUILTIN_SCENARIOS = join(PROJECT_ROOT, 'scenarios');
export const BUILTIN_TARGETS = join(PROJECT_ROOT, 'eval', 'targets');
/** the declarations of `memeval selftest`'s hostile targets */
export const HOSTILE_DIR = join(PROJECT_ROOT, 'eval', 'hostile');
/** memeval's reference memory server and its declaration: `--target reference`, never part of `all` */
export const REFERENCE_DIR = join(PROJECT_ROOT, 'eval', 'reference');
/** the declaration of the reference target: a correct memory server every scenario must pass (selftest) */
export const REFERENCE_TARGET = join(REFERENCE_DIR, 'reference.json5');
/** the labelled judge cases shipped with memeval; `judge calibrate` reads these when given no file */
export const BUILTIN_CALIBRATION = join(PROJECT_ROOT, 'eval', 'calibration', 'memory-hygiene.json5');

export const MEMEVAL_VERSION: string = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')).version;
