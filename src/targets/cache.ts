import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * Where `memeval targets install` and `memeval agents install` put packages: a per-user
 * cache, overridable with MEMEVAL_CACHE_DIR (or the --cache-dir flag, which sets it).
 */
export function cacheDir(): string {
  if (process.env.MEMEVAL_CACHE_DIR) return process.env.MEMEVAL_CACHE_DIR;
  const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'memeval');
}

export function packageInstallDir(kind: 'targets' | 'agents', name: string, version: string): string {
  return join(cacheDir(), kind, `${name}@${version}`);
}
