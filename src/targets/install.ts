import { isAlive } from '../util/processes.js';
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { homedir } from 'node:os';
import { execa } from 'execa';
import { cacheDir } from './cache.js';
import { refusedPackage } from './npm-error.js';
import { resolveBin } from './resolve-bin.js';
import {
  buildCacheDir,
  saveBuild,
  scriptedPackages,
  seedBuild,
  unbuiltPackages,
  type ScriptedPackage,
} from './native-builds.js';
import { MemevalError } from '../util/errors.js';
import { heartbeatMs, withHeartbeat } from '../util/heartbeat.js';

let npmCache: Promise<string> | undefined;

/**
 * The environment npm installs run in: HOME and the XDG dirs inside memeval's cache, so a
 * package's install script (opencode's creates ~/.config/opencode) cannot write into the
 * user's home. npm keeps reading the user's .npmrc (registry, auth) and its download cache.
 */
export async function installEnv(): Promise<Record<string, string>> {
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
  /** more environment for npm and the packages' install scripts (never HOME or npm's own settings) */
  env?: Record<string, string>;
  /**
   * Run install scripts package by package after an --ignore-scripts install, so that native
   * builds come from the build cache when one is there; the named packages (name → why) are
   * not run, because their script cannot work offline. Without it npm runs every script itself.
   */
  builds?: { skip: Record<string, string> };
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
async function withLock<T>(dir: string, fn: () => Promise<T>, onWait?: (waited: string) => void): Promise<T> {
  const lock = `${dir}.lock`;
  mkdirSync(dirname(dir), { recursive: true });
  // said when the wait starts and again every heartbeat while it lasts
  let waitStart: number | undefined;
  let said: number | undefined;
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
      const now = performance.now();
      waitStart ??= now;
      if (said === undefined || now - said >= heartbeatMs()) {
        onWait?.(said === undefined ? '' : ` (${Math.round((now - waitStart) / 1000)} s so far)`);
        said = now;
      }
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

/** The bin resolves at the pinned version and (with builds) no native package is left unbuilt. */
export function isInstalledAt(spec: Pick<InstallSpec, 'dir' | 'npm' | 'bin' | 'version' | 'builds'>): boolean {
  const r = resolveBin(spec.dir, spec.npm, spec.bin);
  if (r === undefined || r.version !== spec.version) return false;
  return !spec.builds || unbuiltPackages(spec.dir, spec.builds.skip).length === 0;
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
        ...(spec.ignoreScripts || spec.builds ? ['--ignore-scripts'] : []),
      ];
      const envNote = Object.entries(spec.env ?? {}).map(([k, v]) => ` ${k}=${v}`);
      log(
        `installing ${spec.npm}@${spec.version}${spec.extra.length ? ` + ${spec.extra.join(' ')}` : ''} into ${spec.dir} (npm ${args.slice(1).join(' ')}${envNote.join('')})`,
      );
      const env = { ...spec.env, ...(await installEnv()) };
      let r: { exitCode?: number; all?: unknown } = await withHeartbeat(log, `${spec.label}: npm install`, () =>
        execa('npm', args, { cwd: staging, reject: false, all: true, env }),
      );
      log(`${spec.label}: npm install done (${seconds(t0)})`);
      if (r.exitCode === 0 && spec.builds)
        r = await runInstallScripts(staging, spec.label, spec.builds.skip, spec.env, log);
      writeFileSync(join(staging, 'install.log'), String(r.all ?? ''));
      if (r.exitCode !== 0 || !resolveBin(staging, spec.npm, spec.bin)) {
        rmSync(staging, { recursive: true, force: true });
        throw new InstallError(installFailureMessage(spec, r.exitCode, String(r.all ?? '')));
      }
      rmSync(spec.dir, { recursive: true, force: true });
      renameSync(staging, spec.dir);
      return { label: spec.label, dir: spec.dir, status: 'installed' as const, ms: performance.now() - t0 };
    },
    (waited) => log(`${spec.label}: another memeval is installing it; waiting${waited}`),
  );
}

/**
 * Why an install failed and what to do: when npm names a package the registry refused, the
 * message names that package (often a dependency, not the one installed) and the hint is
 * about it, not about the package the user declared.
 */
export function installFailureMessage(
  spec: Pick<InstallSpec, 'label' | 'npm' | 'version' | 'bin' | 'builds'>,
  exitCode: number | undefined,
  output: string,
): string {
  const tail = output.trim().split('\n').slice(-15).join('\n');
  const what = `${spec.npm}@${spec.version}`;
  const head = `${spec.label}: npm install of ${what} failed (exit ${exitCode})`;
  const refused = exitCode === 0 ? undefined : refusedPackage(output);
  const why = refused?.code === 'ETARGET' ? 'has no version matching' : 'does not have (or denies access to)';
  if (refused && refused.name !== spec.npm)
    return (
      `${head}: the registry ${why} ${refused.spec ?? refused.name}, a dependency of ${what}, not ${spec.npm} itself\n${tail}\n` +
      `See what the registry has with \`npm view ${refused.name} versions\`; a dependency that is private or was never ` +
      `published cannot be installed: pin a version of ${spec.npm} that does not need it, or give ${refused.name} a ` +
      'published version in package.overrides.'
    );
  if (refused)
    return (
      `${head}: the registry ${why} ${refused.spec ?? what}\n${tail}\n` +
      `See what the registry has with \`npm view ${spec.npm} versions\` and pin one of those in package.version.`
    );
  return (
    `${head}${exitCode === 0 ? `: bin "${spec.bin}" not found` : ''}\n${tail}\n` +
    `Check that the npm registry is reachable and that the version exists (npm view ${what} version)` +
    (spec.builds
      ? '; a dependency whose install script cannot work offline goes in package.skip_build with the reason.'
      : '.')
  );
}

const seconds = (t0: number) => `${((performance.now() - t0) / 1000).toFixed(1)} s`;

/**
 * The install scripts npm skipped, run as `npm rebuild name@version...` (npm's own order and
 * environment, node-gyp with the user's nodedir), except for native builds already in the
 * build cache, which are copied in, and the declared skips. Each native package version is
 * built under a lock on its cache entry, so two installs needing it at once compile it once;
 * fresh builds go into the cache. A gyp package still unbuilt afterwards fails the install: a
 * server that cannot load its store's module must not install as if it could.
 */
async function runInstallScripts(
  prefix: string,
  label: string,
  skip: Record<string, string>,
  env: Record<string, string> | undefined,
  log: (s: string) => void,
): Promise<{ exitCode?: number; all: string }> {
  const gyp = new Map<string, ScriptedPackage[]>();
  const others = new Set<string>();
  const optional: ScriptedPackage[] = [];
  for (const p of scriptedPackages(prefix)) {
    const spec = `${p.name}@${p.version}`;
    if (p.name in skip) log(`${label}: not running ${spec}'s install script: ${skip[p.name]}`);
    else if (p.optional && !p.gyp) optional.push(p);
    else if (p.gyp) gyp.set(spec, [...(gyp.get(spec) ?? []), p]);
    else others.add(spec);
  }
  const rebuild = async (specs: string[]) => {
    const t0 = performance.now();
    log(`${label}: running install scripts of ${specs.join(', ')}`);
    // the scripts run here, not in npm install: they need the declared install_env too
    const rebuildEnv = { ...env, ...(await installEnv()) };
    const r = await withHeartbeat(log, `${label}: install scripts of ${specs.join(', ')}`, () =>
      execa('npm', ['rebuild', '--loglevel=error', ...specs], {
        cwd: prefix,
        reject: false,
        all: true,
        env: rebuildEnv,
      }),
    );
    if (r.exitCode === 0) log(`${label}: ${specs.join(', ')} done (${seconds(t0)})`);
    return { exitCode: r.exitCode, all: String(r.all ?? '') };
  };
  for (const [spec, copies] of gyp) {
    const r = await withLock(
      buildCacheDir(copies[0]),
      async () => {
        if (copies.every(seedBuild)) {
          log(`${label}: ${spec} built before, copied from the build cache`);
          return { exitCode: 0, all: '' };
        }
        const built = await rebuild([spec]);
        if (built.exitCode === 0) for (const p of copies) saveBuild(p);
        return built;
      },
      (waited) => log(`${label}: another install is building ${spec}; waiting for it${waited}`),
    );
    if (r.exitCode !== 0) return r;
  }
  if (others.size) {
    const r = await rebuild([...others]);
    if (r.exitCode !== 0) return r;
  }
  // as npm install does: an optional dependency whose install script fails is left out, not fatal
  // (onnxruntime-node's postinstall downloads from GitHub; what needs it then runs without it)
  for (const p of optional) {
    const r = await rebuild([`${p.name}@${p.version}`]);
    if (r.exitCode === 0) continue;
    log(`${label}: optional ${p.name}@${p.version}'s install script failed; left out, as npm install leaves it out`);
    rmSync(p.dir, { recursive: true, force: true });
  }
  const unbuilt = unbuiltPackages(prefix, skip);
  if (unbuilt.length)
    return {
      exitCode: 1,
      all: `no .node file in the package after its build: ${unbuilt.map((p) => `${p.name}@${p.version}`).join(', ')}`,
    };
  return { exitCode: 0, all: '' };
}

/** "name@range" → [name, range], scoped names included. */
function splitSpec(s: string): [string, string] {
  const at = s.lastIndexOf('@');
  return at > 0 ? [s.slice(0, at), s.slice(at + 1)] : [s, '*'];
}
