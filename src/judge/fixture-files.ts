import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, isAbsolute, join, relative, resolve, sep } from 'node:path';

/** A file in the fixture the judges read, labelled by its path inside the fixture. */
export interface FixtureFile {
  abs: string;
  label: string;
}

/** The fixture as the judges see it: where it is and the placeholders that name its folders. */
export interface FixtureView {
  root: string;
  project: string;
  vars: Record<string, string>;
}

// the names agents give their own memory and instruction files; their session logs are not memory
const MEMORY_NAMES = new Set([
  'CLAUDE.md',
  'CLAUDE.local.md',
  'AGENTS.md',
  'AGENTS.override.md',
  'GEMINI.md',
  'QWEN.md',
  'MEMORY.md',
]);
const MEMORY_DIRS = new Set(['memory', 'memories']);
function walk(dir: string, out: string[], skip: (abs: string) => boolean, other?: string[]): void {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    const abs = join(dir, e.name);
    if (skip(abs)) continue;
    if (e.isDirectory()) walk(abs, out, skip, other);
    else if (e.isFile()) out.push(abs);
    // a symlink is not followed (what it points to inside the fixture is walked where it is); a FIFO would block a read
    else other?.push(abs);
  }
}

/** Size and change times of every file under a folder, to tell later which ones nothing touched. */
export type Stamps = Map<string, string>;

const stampOf = (abs: string) => {
  try {
    const st = statSync(abs);
    return `${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
  } catch {
    return undefined;
  }
};

/** Stamp every file of the fixture as memeval left it before any server ran. */
export function stampFiles(root: string): Stamps {
  const all: string[] = [];
  walk(root, all, (abs) => basename(abs) === '.git');
  return new Map(all.map((abs) => [abs, stampOf(abs) ?? '']));
}

/** The files `absent` reads beyond the store, and what it leaves out on purpose, named. */
export interface ScanPlan {
  files: FixtureFile[];
  leftOut: string[];
}

/**
 * Every file the fixture holds after the run (data dir, project, HOME, tmp, anything else under
 * its root), but: the store (judged on its own, from its copy), `.git`, files memeval wrote
 * before any server ran that nothing changed since (`unchanged`; the scenario's setup files as
 * written also without stamps), and in the folders an agent keeps its own files (`profileDirs`:
 * its profile, and HOME and tmp when an agent ran) only the memory and instruction files it
 * keeps as memory (CLAUDE.md, GEMINI.md, MEMORY.md, memory/…): its session logs hold the prompts.
 */
export function fixtureScanPlan(o: {
  fixture: FixtureView;
  profileDirs: string[];
  setupFiles: { path: string; content: string }[];
  storePath: string;
  unchanged?: Stamps;
}): ScanPlan {
  const storePath = o.storePath ? resolve(o.storePath) : undefined;
  // the store file or folder, and SQLite's companions of a store file (-wal, -shm, -journal)
  const isStore = (abs: string) =>
    storePath !== undefined &&
    (abs === storePath || abs.startsWith(storePath + sep) || abs.startsWith(storePath + '-'));
  const profiles = o.profileDirs.map((d) => resolve(d));
  const inProfile = (abs: string) => profiles.some((d) => abs === d || abs.startsWith(d + sep));
  const setup = new Map(o.setupFiles.map((f) => [resolve(o.fixture.project, f.path), f.content]));
  const all: string[] = [];
  const other: string[] = [];
  const gits: string[] = [];
  const isGit = (abs: string) => basename(abs) === '.git' && (gits.push(abs), true);
  walk(o.fixture.root, all, (abs) => isStore(abs) || inProfile(abs) || isGit(abs), other);
  for (const dir of profiles) {
    const mine: string[] = [];
    walk(dir, mine, (abs) => isStore(abs) || basename(abs) === '.git');
    all.push(
      ...mine.filter(
        (abs) =>
          MEMORY_NAMES.has(basename(abs)) ||
          relative(dir, abs)
            .split(sep)
            .some((part) => MEMORY_DIRS.has(part)),
      ),
    );
  }
  let untouched = 0;
  let asSetUp = 0;
  const files = [...new Set(all)].filter((abs) => {
    const stamp = o.unchanged?.get(abs);
    if (stamp !== undefined && stamp === stampOf(abs)) return (untouched++, false);
    const original = setup.get(abs);
    if (original !== undefined && readIfExists(abs) === original) return (asSetUp++, false);
    return true;
  });
  const label = (abs: string) => relative(o.fixture.root, abs) || '.';
  const leftOut = [
    ...(untouched ? [`${untouched} file(s) memeval wrote before the run that nothing changed`] : []),
    ...(asSetUp ? [`${asSetUp} setup file(s) as the scenario wrote them`] : []),
    ...profiles.map(
      (d) => `${label(d)}/ but the agent's memory and instruction files (its session logs hold the prompts)`,
    ),
    ...(other.length
      ? [`${other.length} entr(ies) that are not regular files: ${other.slice(0, 5).map(label).join(', ')}`]
      : []),
    ...gits.map((g) => `${label(g)}/ (git objects are compressed)`),
  ];
  return { files: files.map((abs) => ({ abs, label: label(abs) })), leftOut };
}

/** The files of fixtureScanPlan, without what it left out. */
export function fixtureFilesToScan(o: Parameters<typeof fixtureScanPlan>[0]): FixtureFile[] {
  return fixtureScanPlan(o).files;
}

/** A `file` assertion's path inside the fixture; undefined when it would leave the fixture. */
export function resolveFixturePath(f: FixtureView, path: string): string | undefined {
  const filled = path.replace(/\{\{\s*(\w+)\s*\}\}/g, (m, k: string) => f.vars[k] ?? m);
  const abs = isAbsolute(filled) ? resolve(filled) : resolve(f.project, filled);
  const rel = relative(f.root, abs);
  return rel.startsWith('..') || isAbsolute(rel) ? undefined : abs;
}

export function readIfExists(abs: string): string | undefined {
  return existsSync(abs) && statSync(abs).isFile() ? readFileSync(abs, 'utf8') : undefined;
}
