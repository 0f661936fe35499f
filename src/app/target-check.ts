/**
 * `memeval targets check`: a declaration against its real server. The API other commands call
 * (`targets new` checks its draft with it); its signature stays as it is:
 *
 *   checkTarget(declOrFile: string | TargetDecl, options?: TargetCheckOptions): Promise<TargetCheckReport>
 *
 * `declOrFile` is a built-in target's name, a declaration file, or a declaration already parsed.
 * Bad input (an unknown name, a file that does not parse or load, a target not installed without
 * `install`) throws an InputError or NotInstalledError (exit 3) before anything runs; a server
 * that does not start is a failed point, not a throw.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, extname, join, resolve } from 'node:path';
import { loadScenarios, scenarioFiles } from '../scenario/loader.js';
import { checkTarget as declarationProblems } from '../targets/checks.js';
import { installTarget } from '../targets/install-target.js';
import { namedTargetFiles } from '../targets/files.js';
import { loadTarget, loadTargetFile } from '../targets/loader.js';
import { checkOps } from '../targets/op-checks.js';
import { resolveTargetBin } from '../targets/resolve-bin.js';
import { checkTargetWiring, type TargetDecl } from '../targets/schema.js';
import { InputError, nearest } from '../util/errors.js';
import { BUILTIN_SCENARIOS } from '../util/paths.js';
import { pointsHold, type CheckPoint } from '../declare/check/points.js';
import { claimPoints } from '../declare/check/claim-coverage.js';
import { scenarioFieldValues } from '../declare/check/tool-points.js';
import { liveCheck } from '../declare/check/live.js';

export type { CheckPoint, CheckPointKind } from '../declare/check/points.js';
export { formatPoint, pointsHold, summaryLine } from '../declare/check/points.js';

export interface TargetCheckOptions {
  /** install the target's pinned package into the cache first (default: it must be installed) */
  install?: boolean;
  /** keep the check's dir (calls log, server stderr, provider log) and fixture; the report names it */
  keep?: boolean;
  /** where the check's dir is made (default: the system temp dir) */
  workDir?: string;
  /** scenarios whose violations say which claims can be checked (default: the built-in ones) */
  scenariosDir?: string;
  signal?: AbortSignal;
  /** progress lines (installs) */
  log?: (line: string) => void;
  /** a point that could not be checked does not fail the declaration (it is still reported) */
  allowUnchecked?: boolean;
}

export interface TargetCheckReport {
  target: string;
  /** the declaration file, when the check was given one */
  file?: string;
  /** "<npm package>@<installed version>", or "local: <command>" */
  package: string;
  /** no point failed, and none could not be checked (unless `allow_unchecked`) */
  ok: boolean;
  points: CheckPoint[];
  /** the points that apply but could not be checked, and why: they fail the check unless allowed */
  unchecked: { subject: string; detail: string }[];
  allow_unchecked: boolean;
  ms: number;
  /** the check's dir, when kept */
  dir?: string;
}

export async function checkTarget(
  declOrFile: string | TargetDecl,
  options: TargetCheckOptions = {},
): Promise<TargetCheckReport> {
  const t0 = performance.now();
  const { decl, file } = loadDeclaration(declOrFile);
  const scenarios = loadScenarios(scenarioFiles(options.scenariosDir ?? BUILTIN_SCENARIOS));
  if (options.install) await installTarget(decl, options.log ?? (() => {}));
  // the hint names the command being run, not `memeval run`
  const bin = resolveTargetBin(
    decl,
    `run \`memeval targets check ${typeof declOrFile === 'string' ? declOrFile : decl.name} --install\``,
  );
  const dir = mkdtempSync(join(options.workDir ?? tmpdir(), `memeval-check-${decl.name}-`));
  let points: CheckPoint[];
  try {
    points = [
      ...(await liveCheck({
        decl,
        bin,
        dir,
        keep: options.keep ?? false,
        signal: options.signal,
        fieldValues: scenarioFieldValues(decl, scenarios),
      })),
      ...claimPoints(decl, scenarios),
    ];
  } finally {
    if (!options.keep) rmSync(dir, { recursive: true, force: true });
  }
  return {
    target: decl.name,
    ...(file ? { file } : {}),
    package: decl.package ? `${decl.package.npm}@${bin.version}` : `local: ${decl.server.command}`,
    ok: pointsHold(points, options.allowUnchecked ?? false),
    points,
    unchecked: points.filter((p) => p.status === 'unchecked').map((p) => ({ subject: p.subject, detail: p.detail })),
    allow_unchecked: options.allowUnchecked ?? false,
    ms: Math.round(performance.now() - t0),
    ...(options.keep ? { dir } : {}),
  };
}

/** A name, a file or a parsed declaration → a declaration that passed every load-time check. */
function loadDeclaration(declOrFile: string | TargetDecl): { decl: TargetDecl; file?: string } {
  if (typeof declOrFile !== 'string') {
    const problems = [...checkTargetWiring(declOrFile), ...checkOps(declOrFile), ...declarationProblems(declOrFile)];
    if (problems.length)
      throw new InputError(
        problems.map((p) => `target ${declOrFile.name}: ${p}`).join('\n'),
        problems.map((p) => `target ${declOrFile.name}: ${p}`),
      );
    return { decl: declOrFile };
  }
  const looksLikeFile = ['.json5', '.json'].includes(extname(declOrFile)) || declOrFile.includes('/');
  if (!looksLikeFile) {
    const names = namedTargetFiles().map((f) => basename(f, extname(f)));
    if (!names.includes(declOrFile)) {
      const guess = nearest(declOrFile, names);
      throw new InputError(
        `targets check: unknown target "${declOrFile}"${guess ? ` (did you mean "${guess}"?)` : ''}; known: ${names.join(', ')}; or give a declaration file`,
      );
    }
    return { decl: loadTarget(declOrFile).decl };
  }
  if (!existsSync(declOrFile))
    throw new InputError(
      `${declOrFile}: no such declaration file; give a built-in target's name or the path of a .json5 declaration`,
    );
  return { decl: loadTargetFile(declOrFile).decl, file: resolve(declOrFile) };
}
