// `npm test` runs this first: the browser test needs a Chromium. When none is found and this runs
// as root with apt-get, it installs Debian's chromium; otherwise it stops the tests with one line.
// It also builds dist/ when the source is newer, so the tests spawn the built CLI (see built-cli.ts).
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { staleBuiltFile } from './built-cli.ts';
import { findChromium } from './chromium.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const stale = staleBuiltFile(ROOT);
if (stale) {
  console.error(`memeval tests: building dist/ (${stale} is newer than its build)…`);
  try {
    execFileSync(process.execPath, [fileURLToPath(import.meta.resolve('typescript/bin/tsc')), '-p', 'tsconfig.json'], {
      cwd: ROOT,
      stdio: 'inherit',
    });
  } catch {
    console.error('memeval tests: `npm run build` failed; fix the type errors above, then npm test again');
    process.exit(1);
  }
}

const HOW = 'apt-get install -y --no-install-recommends chromium';

function hasAptGet(): boolean {
  try {
    execFileSync('sh', ['-c', 'command -v apt-get'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

if (!findChromium()) {
  if (process.env.CHROMIUM_PATH) {
    console.error(
      `memeval tests: CHROMIUM_PATH=${process.env.CHROMIUM_PATH} is not an executable file; point it at a Chromium binary, or unset it and run: sudo ${HOW}`,
    );
    process.exit(1);
  }
  if (process.getuid?.() !== 0 || !hasAptGet()) {
    console.error(
      `memeval tests need Chromium for the HTML report test: run \`sudo ${HOW}\` (or set CHROMIUM_PATH), then npm test again`,
    );
    process.exit(1);
  }
  console.error("memeval tests: no Chromium found; installing Debian's chromium (apt-get, about a minute)…");
  const started = Date.now();
  try {
    execFileSync('apt-get', ['update', '-qq'], { stdio: ['ignore', 'ignore', 'inherit'] });
    execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'chromium'], {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  } catch (e) {
    console.error(
      `memeval tests: installing chromium failed (${(e as Error).message.split('\n')[0]}); run \`${HOW}\` yourself, then npm test again`,
    );
    process.exit(1);
  }
  const found = findChromium();
  if (!found) {
    console.error(
      `memeval tests: apt-get installed chromium but no executable was found; run \`${HOW}\` and check /usr/bin/chromium`,
    );
    process.exit(1);
  }
  console.error(`memeval tests: installed ${found} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
}
