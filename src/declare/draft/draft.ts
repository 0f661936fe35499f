import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { createFixture, removeFixture } from '../../fixture/fixture.js';
import { targetInstallDir } from '../../targets/cache.js';
import { installPackage } from '../../targets/install.js';
import { loadTargetFile } from '../../targets/loader.js';
import { resolveBin, targetPrefix, type ResolvedBin } from '../../targets/resolve-bin.js';
import { PROGRAM_NAME, targetSchema, type TargetDecl } from '../../targets/schema.js';
import { InputError } from '../../util/errors.js';
import { redirectEnv, storageEnvNames } from './env.js';
import { exercise, type Exercised } from './exercise.js';
import { locateStore, type StoreFinding } from './locate.js';
import type { OpMapping } from './ops.js';
import {
  chooseBin,
  draftName,
  isLocalSpec,
  parsePackageSpec,
  readLocalPackage,
  resolvePackage,
  type PackageSpec,
} from './package.js';
import { inferCaptureId, inferRecallResults } from './results.js';
import { filesUnder } from './store.js';
import { writeDraft } from './write.js';

export interface DraftOptions {
  /** "<npm package>[@version]" */
  spec: string;
  /** the target name (default: the --out file's name, else from the package name) */
  name?: string;
  /** which of the package's bins starts the server */
  bin?: string;
  /** arguments the server is started with */
  args?: string[];
  /** environment the server is started with (values may hold placeholders such as {{data}}) */
  env?: Record<string, string>;
  /** where the draft goes (default eval/targets/<name>.json5 under the working dir) */
  out?: string;
  force?: boolean;
  log: (line: string) => void;
}

export interface Draft {
  file: string;
  decl: TargetDecl;
  /** what a person still has to decide before the declaration is final */
  toDecide: string[];
  /** what the drafting saw and chose that a person may want to look at */
  notes: string[];
}

const packageSchema = targetSchema.shape.package.unwrap();

/** The package's side of a draft: what is started, and how. */
type Base = Pick<TargetDecl, 'name' | 'description'> &
  Partial<Pick<TargetDecl, 'homepage' | 'package' | 'cli'>> & {
    server: { command?: string; args: string[]; env: Record<string, string> };
  };

/**
 * Draft a target declaration for an npm package: install it, start it in a fixture, map the ops
 * to its tools by name and schema, write a marker memory and find where it landed, read the
 * formats of its real results, and write the draft (which must load as any declaration does).
 */
export async function draftDeclaration(o: DraftOptions): Promise<Draft> {
  const local = isLocalSpec(o.spec) ? readLocalPackage(o.spec) : undefined;
  const spec = local ?? parsePackageSpec(o.spec);
  const file = checkOutput(o, spec.npm);
  const name = basename(file).replace(/\.json5?$/, '');
  const { base, resolved, notes } = local ? localServer(local, name, o) : await npmServer(spec, name, o);
  const envNames = storageEnvNames(resolved.packageDir);

  let { seen, found } = await attempt(base, resolved, o.log);
  // a server that keeps its store in its own package folder, or refuses writes without its storage
  // variable: point it into the fixture and try again
  const stray = found.outside[0];
  const redirect =
    !found.view && !o.env && (stray || (seen.rememberText !== undefined && !seen.remembered))
      ? redirectEnv(envNames, stray)
      : undefined;
  if (redirect) {
    o.log(
      `${stray ? `the marker landed in the package's own folder (${stray})` : 'every write was refused'}; trying again with ${Object.entries(
        redirect,
      )
        .map(([k, v]) => `${k}=${v}`)
        .join(' ')}`,
    );
    base.server.env = redirect;
    ({ seen, found } = await attempt(base, resolved, o.log));
  }
  const { decl, toDecide } = compose(base, seen, found, envNames, notes);
  writeDraft(file, decl, toDecide, []);
  o.log(`wrote ${file}`);
  // the draft must load as any declaration does; one that does not is memeval's bug, not the user's
  loadTargetFile(file);
  return { file, decl, toDecide, notes };
}

/** A package folder on disk: started with its bin file as a local command, nothing installed. */
function localServer(
  pkg: ReturnType<typeof readLocalPackage>,
  name: string,
  o: DraftOptions,
): { base: Base; resolved: ResolvedBin; notes: string[] } {
  const { bin, note } = chooseBin(pkg, o.bin);
  const started = (rel: string) => {
    const file = resolve(pkg.dir, rel);
    return /\.(c|m)?js$/.test(file) ? { command: '{{node}}', args: [file] } : { command: file, args: [] };
  };
  const server = started(pkg.bins[bin]);
  o.log(`${pkg.npm}@${pkg.version} from ${pkg.dir}: started as a local command, nothing to install`);
  // its bins stay its own CLI, as an installed package's do: command judges naming one run it
  const cli = Object.fromEntries(
    Object.entries(pkg.bins)
      .filter(([b]) => PROGRAM_NAME.test(b))
      .map(([b, rel]) => [b, started(rel)]),
  );
  return {
    base: {
      name,
      description: `${pkg.npm} ${pkg.version} from ${pkg.dir} (draft by memeval targets new)`,
      server: { command: server.command, args: [...server.args, ...(o.args ?? [])], env: o.env ?? {} },
      ...(Object.keys(cli).length ? { cli } : {}),
    },
    resolved: { packageDir: pkg.dir, file: resolve(pkg.dir, pkg.bins[bin]), version: pkg.version },
    notes: note ? [note] : [],
  };
}

/** A package from npm: memeval's own copy when it depends on that version, else installed into the cache. */
async function npmServer(
  spec: PackageSpec,
  name: string,
  o: DraftOptions,
): Promise<{ base: Base; resolved: ResolvedBin; notes: string[] }> {
  const dependencyDir = targetPrefix(
    packageSchema.parse({ npm: spec.npm, version: '0', bin: 'x', source: 'dependency' }),
    name,
  );
  o.log(`resolving ${o.spec}`);
  const pkg = await resolvePackage(spec, join(dependencyDir, 'node_modules', spec.npm, 'package.json'));
  const { bin, note } = chooseBin(pkg, o.bin);
  const pinned = { npm: pkg.npm, version: pkg.version, bin };
  const asDependency = packageSchema.parse({ ...pinned, source: 'dependency' });
  const fromDependency = resolveBin(dependencyDir, pkg.npm, bin)?.version === pkg.version;
  const base: Base = {
    name,
    description: `${pkg.npm} ${pkg.version} (draft by memeval targets new)`,
    homepage: `https://www.npmjs.com/package/${pkg.npm}`,
    package: fromDependency ? asDependency : packageSchema.parse(pinned),
    server: { args: o.args ?? [], env: o.env ?? {} },
  };
  if (fromDependency) o.log(`${pkg.npm}@${pkg.version} is a dependency of memeval; nothing to install`);
  else {
    const dir = targetInstallDir(pinned, name);
    const r = await installPackage(
      { label: name, npm: pkg.npm, version: pkg.version, bin, extra: [], overrides: {}, omitOptional: false, dir },
      o.log,
    );
    o.log(r.status === 'installed' ? `installed in ${(r.ms / 1000).toFixed(1)} s` : `already installed in ${dir}`);
  }
  const resolved = resolveBin(targetPrefix(base.package!, name), pkg.npm, bin)!;
  return { base, resolved, notes: note ? [note] : [] };
}

/** Where the draft goes; refused before anything runs when it exists (without --force) or names no declaration. */
function checkOutput(o: DraftOptions, npm: string): string {
  const stem = o.out ? basename(o.out).replace(/\.json5?$/, '') : undefined;
  if (o.out && !/\.json5?$/.test(o.out)) throw new InputError(`--out: ${o.out} must end in .json5 or .json`);
  if (o.name && stem && o.name !== stem)
    throw new InputError(
      `--name: "${o.name}" differs from the --out file name "${stem}"; a declaration's name is its file name`,
    );
  const name = o.name ?? stem ?? draftName(npm);
  if (!/^[a-z0-9][a-z0-9-]*$/.test(name))
    throw new InputError(`--name: "${name}" must be lowercase letters, digits and - (it names the file too)`);
  const file = resolve(o.out ?? join('eval', 'targets', `${name}.json5`));
  if (existsSync(file) && !o.force)
    throw new InputError(`--out: ${file} exists; pass --force to overwrite it, or --out FILE for another file`);
  for (const [k, v] of Object.entries(o.env ?? {}))
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k))
      throw new InputError(`--env: "${k}=${v}" does not start with a variable name`);
  return file;
}

/** One fixture: exercise the server in it and find where the marker landed. */
async function attempt(
  base: Base,
  bin: ResolvedBin,
  log: (line: string) => void,
): Promise<{ seen: Exercised; found: StoreFinding }> {
  const decl = targetSchema.parse({ ...base, store: { format: 'none' }, views: { memories: 'SELECT 1' }, ops: {} });
  const before = new Set(filesUnder(bin.packageDir));
  const work = mkdtempSync(join(tmpdir(), `memeval-new-${base.name}-`));
  const fixture = await createFixture(`new-${base.name}`);
  try {
    const seen = await exercise(decl, bin, fixture, work, log);
    // the unrelated queries were sent but never written: a table or file holding them logs calls
    const found = seen.remembered
      ? locateStore(
          fixture,
          bin.packageDir,
          before,
          seen.marker,
          seen.misses.map((m) => m.query),
        )
      : { store: { format: 'none' as const }, rowIds: [], outside: [], notes: [], toDecide: [] };
    if (found.store.format !== 'none') log(`the marker is in ${found.store.path} (${found.store.format})`);
    return { seen, found };
  } finally {
    await removeFixture(fixture);
    rmSync(work, { recursive: true, force: true });
  }
}

/** A view over the calls log, for a server whose store was not found. */
const CALLS_VIEW =
  "SELECT c.seq AS id, c.arguments AS content, NULL AS category, NULL AS source, NULL AS subject, c.ts AS created_at, 0 AS is_deleted FROM calls c WHERE c.op = 'remember' AND c.is_error = 0";

/** The declaration from what the session showed, and what a person still has to decide about it. */
function compose(
  base: Base,
  seen: Exercised,
  found: StoreFinding,
  envNames: string[],
  notes: string[],
): { decl: TargetDecl; toDecide: string[] } {
  const toDecide = [
    'claims: none declared; list the defences the server says it has (see README "Claims"): a claimed defence that is only detected fails the run',
  ];
  const ops: TargetDecl['ops'] = Object.fromEntries(
    seen.mapping.filter((m) => m.choice).map((m) => [m.op, [{ tool: m.choice!.tool, args: m.choice!.args }]]),
  );
  for (const m of seen.mapping) describeMapping(m, toDecide, notes);
  if (!seen.remembered)
    toDecide.push(
      `ops.remember: ${seen.rememberText === undefined ? 'not mapped' : `every tool tried refused the marker memory (${JSON.stringify(seen.rememberText.slice(0, 160))})`}, so the store and the result formats could not be found`,
    );
  else if (!found.view && !found.toDecide.length)
    toDecide.push(
      found.outside.length
        ? `store: the marker landed in the package's own folder (${found.outside.join(', ')}), outside the fixture; point it into the fixture with --env (the package reads ${envNames.join(', ') || 'no storage variable memeval recognises'}) and run targets new again`
        : `store: the marker was written but no file under the fixture holds it (the server keeps memories in its process, or somewhere memeval does not look); the draft declares format "none" and reads the calls log${envNames.length ? `; the package reads ${envNames.join(', ')}: point one into the fixture with --env (e.g. ${envNames[0]}={{data}}/...) and run targets new again` : ''}`,
    );
  toDecide.push(...found.toDecide);
  if (seen.shortRefused)
    toDecide.push(
      `ops.remember: the server refused a ${seen.shortRefused.content.length}-character memory (${JSON.stringify(seen.shortRefused.text.slice(0, 160))}); scenarios with short memories will error until the template pads them (and views.memories strips the padding)`,
    );
  notes.push(...found.notes);
  if (found.view && envNames.length && !Object.keys(base.server.env).length)
    notes.push(
      `server.env: the package reads ${envNames.join(', ')}; the draft sets none (the store is where the server puts it by default)`,
    );
  if (ops.remember && seen.remembered && seen.rememberText !== undefined) {
    const remember = seen.mapping.find((m) => m.op === 'remember')?.choice;
    const constants = (remember?.notes ?? []).filter((n) => n.kind === 'constant').map((n) => String(n.value));
    const second = seen.second?.ok ? seen.second.text : undefined;
    const cap = inferCaptureId(seen.rememberText, found.rowIds, second, constants);
    if (cap.capture_id) ops.remember[0].capture_id = cap.capture_id;
    else if (/\{\{memory\.id\}\}/.test(JSON.stringify([ops.forget, ops.update])))
      toDecide.push(
        `ops.remember[0].capture_id: the remember's result names no id memeval could find (${JSON.stringify(seen.rememberText.slice(0, 120))})${cap.refused ? `; refused: ${cap.refused}` : ''}; forget and update use {{memory.id}}, which is then the content's key`,
      );
    else if (cap.refused) notes.push(`ops.remember[0].capture_id: none drafted; refused: ${cap.refused}`);
  }
  const views = { memories: found.view ?? CALLS_VIEW };
  let recall_results: TargetDecl['recall_results'];
  if (seen.hit && seen.misses.length) {
    const draft = targetSchema.parse({ ...base, store: found.store, views, ops });
    const others = seen.second?.ok ? [seen.second.token] : [];
    const r = inferRecallResults(seen.hit, seen.misses, seen.marker.token, draft, others);
    recall_results = r.recall_results;
    (recall_results ? notes : toDecide).push(...r.notes.map((n) => `recall_results: ${n}`));
  }
  const decl = targetSchema.parse({ ...base, store: found.store, views, ops, recall_results, claims: [] });
  return { decl, toDecide };
}

function describeMapping(m: OpMapping, toDecide: string[], notes: string[]): void {
  if (!m.choice) {
    toDecide.push(`ops.${m.op}: ${m.reason}; scenarios that need ${m.op} are unsupported until you map it`);
    return;
  }
  const consts = m.choice.notes.filter((n) => n.kind === 'constant');
  if (consts.length)
    notes.push(
      `ops.${m.op} (${m.choice.tool}): constant arguments ${consts.map((c) => `${c.path}=${JSON.stringify(c.value)}`).join(', ')}`,
    );
  if (m.alternatives.length)
    notes.push(`ops.${m.op}: ${m.choice.tool} chosen over ${m.alternatives.map((a) => a.tool).join(', ')}`);
}
