import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';

/**
 * Watch a store's files for their first change from now: a file store's folder (any file under
 * it), or the folder of a single-file store, for the file and its siblings (an SQLite journal
 * or WAL, a `.tmp` written before a rename): every name that starts with the store's. Event
 * driven (inotify on Linux), not polled. Undefined when the folder cannot be watched.
 */
export function watchStoreFiles(
  path: string,
  folder: boolean,
): { changed: Promise<string>; close(): void } | undefined {
  const prefix = folder ? undefined : basename(path);
  let fire!: (name: string) => void;
  const changed = new Promise<string>((resolve) => (fire = resolve));
  let w: FSWatcher;
  try {
    w = watch(folder ? path : dirname(path), { recursive: folder, persistent: false }, (_event, name) => {
      const file = name === null ? '' : String(name);
      if (prefix === undefined || file.startsWith(prefix)) fire(file || basename(path));
    });
  } catch {
    return undefined;
  }
  w.on('error', () => {});
  return { changed, close: () => w.close() };
}
