// Where the browser tests find Chromium: CHROMIUM_PATH, else Debian's package, else one on PATH.
// Shared by the pretest step (which installs Debian's chromium when it can) and the tests.
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

const DEBIAN = '/usr/bin/chromium';

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The path of a runnable Chromium, or null. A CHROMIUM_PATH that is not runnable is not silently replaced. */
export function findChromium(env: NodeJS.ProcessEnv = process.env): string | null {
  if (env.CHROMIUM_PATH) return executable(env.CHROMIUM_PATH) ? env.CHROMIUM_PATH : null;
  if (executable(DEBIAN)) return DEBIAN;
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    for (const name of ['chromium', 'chromium-browser']) {
      if (dir && executable(join(dir, name))) return join(dir, name);
    }
  }
  return null;
}
