import { readFileSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { filesUnder } from './store.js';

const SOURCE = /\.(c|m)?js$/;
const MAX_FILE_BYTES = 2 * 1024 * 1024;
const ENV_READ = /process\.env(?:\.([A-Z][A-Z0-9_]*)|\[\s*['"]([A-Z][A-Z0-9_]*)['"]\s*\])/g;
/** Names that say where a server keeps its data. */
const STORAGE =
  /(MEMORY|DATA|DB|DATABASE|STORE|STORAGE|KNOWLEDGE|CONTEXT|SQLITE|CACHE)[A-Z_]*(DIR|DIRECTORY|PATH|FILE|HOME|ROOT|URL)$/;

/**
 * The environment variables a package's own code (its dependencies left out) reads that name a
 * place to keep data: where a person points a server's store into the fixture.
 */
export function storageEnvNames(packageDir: string): string[] {
  const names = new Set<string>();
  for (const p of filesUnder(packageDir))
    if (SOURCE.test(basename(p)) && statSync(p).size <= MAX_FILE_BYTES)
      for (const m of readFileSync(p, 'utf8').matchAll(ENV_READ)) names.add(m[1] ?? m[2]);
  return [...names].filter((n) => STORAGE.test(n) && !/^(XDG_|npm_)/.test(n)).sort();
}

/** Storage variables that are not the store itself. */
const NOT_THE_STORE = /EXPORT|LOG|BACKUP|CACHE|TMP|TEMP/;

/**
 * For a server that wrote its store into its own package folder, or refused every write without
 * its storage variable: the variable, among those it reads, that most likely puts the store in
 * the fixture's data dir (a file path keeps the stray file's name; a dir is the data dir itself).
 */
export function redirectEnv(names: string[], strayFile?: string): Record<string, string> | undefined {
  const usable = names.filter((n) => !NOT_THE_STORE.test(n));
  const file = usable.find((n) => /(PATH|FILE)$/.test(n));
  if (file && strayFile) return { [file]: `{{data}}/${basename(strayFile)}` };
  const dir = usable.find((n) => /(DIR|DIRECTORY|HOME|ROOT)$/.test(n));
  return dir ? { [dir]: '{{data}}' } : undefined;
}
