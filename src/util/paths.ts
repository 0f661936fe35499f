import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

/** memeval's own install dir (the folder holding package.json), from src/ or dist/ alike. */
export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export const BUILTIN_SCENARIOS = join(PROJECT_ROOT, 'scenarios');
export const BUILTIN_TARGETS = join(PROJECT_ROOT, 'eval', 'targets');

export const MEMEVAL_VERSION: string = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')).version;
