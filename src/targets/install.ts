import { isAlive } from '../util/processes.js';
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { homedir } from 'node:os';
import { execa } from 'execa';
import { cacheDir } from './cache.js';
import { resolveBin } from './resolve-bin.js';
import { MemevalError } from '../util/errors.js';

let npmCache: Promise<string> | undefined;

/**
 * The environment npm installs run in: HOME and the XDG dirs inside memeval's cache, so a
 * package's install script (opencode's creates ~/.config/opencode) cannot write into the
 * user's home. npm keeps reading the user's .npmrc (registry, auth) and its download cache.
 */
async function installEnv(): Promise<Record<string, string>> {
  npmCache ??= execa('npm', ['config', 'get', 'cache'], { reject: false }).then(
    (r) => (r.exitCode === 0 && r.stdout.trim()) || join(homedir(), '.npm'),
  );
  const home = join(cacheDir(), 'home');
  for (const d of ['.config', '.cache', join('.local', 'share'), join('.local', 'state')])
    mkdirSync(join(home, d), { recursive: true });
  return {
    npm_config_yes: 'true',
    npm_config_userconfig: process.env.npm_config_userconfig ?? join(homedir(), '.npmrc'),
    npm_config_cache: await npmCache,
    HOME: home,
    USERPROFILE: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
  };
}

/** What to put into an isolated npm prefix in the cache. */
export interface InstallSpec {
  /** what the user calls it, for messages */
  label: string;
  npm: string;
  version: string;
  bin: string;
  extra: string[];
  overrides: Record<string, string>;
  omitOptional: boolean;
  /** npm --ignore-scripts (agents and most targets leave it off) */
  ignoreScripts?: boolean;
  /** the final prefix dir (node_modules lives inside) */
  dir: string;
}

export interface InstallResult {
  label: string;
  dir: string;
  status: 'installed' | 'already';
  ms: number;
}

export class InstallError extends MemevalError {
  constructor(message: string) {
    super('INSTALL', message);
  }
}

const LOCK_STALE_MS = 20 * 60_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A lock dir beside the prefix: mkdir is atomic, so two runs installing at once take turns. */
async function withLock<T>(dir: string, fn: () => Promise<T>, onWait?: () => void): Promise<T> {
  const lock = `${dir}.lock`;
  mkdirSync(dirname(dir), { recursive: true });
  let waited = false;
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, 'owner'), `${process.pid}\n`);
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      let stale = false;
      try {
        const pid = Number(readFileSync(join(lock, 'owner'), 'utf8'));
        stale = Date.now() - statSync(lock).mtimeMs > LOCK_STALE_MS || (pid > 0 && !isAlive(pid));
      } catch {
        stale = Date.now() - safeMtime(lock) > 5000; // lock dir without an owner file for long
      }
      if (stale) {
        rmSync(lock, { recursive: true, force: true });
        continue;
      }
      if (!waited) onWait?.();
      waited = true;
      await sleep(500);
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

function safeMtime(p: string): number {
  try {
    return statSync(p).mtimeMs;
  } catch {
    return Date.now();
  }
}

export function isInstalledAt(spec: Pick<InstallSpec, 'dir' | 'npm' | 'bin' | 'version'>): boolean {
  const r = resolveBin(spec.dir, spec.npm, spec.bin);
  return r !== undefined && r.version === spec.version;
}

/**
 * Install a pinned package into its own prefix: npm installs into a staging dir which is
 * renamed into place only when the bin resolves, so a failed or interrupted install never
 * leaves a half-installed prefix behind. Idempotent.
 */
export async function installPackage(spec: InstallSpec, log: (s: string) => void = () => {}): Promise<InstallResult> {
  const t0 = performance.now();
  if (isInstalledAt(spec)) return { label: spec.label, dir: spec.dir, status: 'already', ms: 0 };
  return withLock(
    spec.dir,
    async () => {
      if (isInstalledAt(spec))
        return { label: spec.label, dir: spec.dir, status: 'already' as const, ms: performance.now() - t0 };
      const staging = `${spec.dir}.staging-${process.pid}`;
      rmSync(staging, { recursive: true, force: true });
      mkdirSync(staging, { recursive: true });
      const manifest: Record<string, unknown> = {
        name: `memeval-cache-${spec.label}`.replace(/[^a-z0-9-]/g, '-'),
        private: true,
        description: `installed by memeval for ${spec.label}`,
        dependencies: Object.fromEntries([[spec.npm, spec.version], ...spec.extra.map(splitSpec)]),
      };
      if (Object.keys(spec.overrides).length) manifest.overrides = spec.overrides;
      writeFileSync(join(staging, 'package.json'), JSON.stringify(manifest, null, 2));
      const args = [
        'install',
        '--no-audit',
        '--no-fund',
        '--no-update-notifier',
        '--loglevel=error',
        ...(spec.omitOptional ? ['--omit=optional'] : []),
        ...(spec.ignoreScripts ? ['--ignore-scripts'] : []),
      ];
      log(
        `installing ${spec.npm}@${spec.version}${spec.extra.length ? ` + ${spec.extra.join(' ')}` : ''} into ${spec.dir} (npm ${args.slice(1).join(' ')})`,
      );
      const r = await execa('npm', args, { cwd: staging, reject: false, all: true, env: await installEnv() });
      writeFileSync(join(staging, 'install.log'), String(r.all ?? ''));
      if (r.exitCode !== 0 || !resolveBin(staging, spec.npm, spec.bin)) {
        const tail = String(r.all ?? '')
          .trim()
          .split('\n')
          .slice(-15)
          .join('\n');
        rmSync(staging, { recursive: true, force: true });
        throw new InstallError(
          `${spec.label}: npm install of ${spec.npm}@${spec.version} failed (exit ${r.exitCode})${r.exitCode === 0 ? `: bin "${spec.bin}" not found` : ''}\n${tail}\n` +
            'Check that the npm registry is reachable and that the version exists (npm view ' +
            `${spec.npm}@${spec.version} version).`,
        );
      }
      rmSync(spec.dir, { recursive: true, force: true });
      renameSync(staging, spec.dir);
      return { label: spec.label, dir: spec.dir, status: 'installed' as const, ms: performance.now() - t0 };
    },
    () => log(`${spec.label}: another memeval is installing it; waiting`),
  );
}

/** "name@range" → [name, range], scoped names included. */
function splitSpec(s: string): [string, string] {
  const at = s.lastIndexOf('@');
  return at > 0 ? [s.slice(0, at), s.slice(at + 1)] : [s, '*'];
}
