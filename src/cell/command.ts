import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isolatedEnv, type Fixture } from '../fixture/fixture.js';
import { sandboxLaunch, type LoopbackBridge } from '../fixture/sandbox.js';
import type { CommandRequest, CommandRun } from '../judge/context.js';
import type { ResolvedBin } from '../targets/resolve-bin.js';
import type { TargetDecl } from '../targets/schema.js';
import { binCommand, killTree, track, untrack } from '../util/processes.js';
import { PROJECT_ROOT } from '../util/paths.js';
import { fillString } from '../util/template.js';

/** stdout a command judge keeps; past it the run is cut and its stdout checks `error`. */
export const COMMAND_STDOUT_MAX = 1 << 20;

/**
 * Why a `command` judge that names `bin` cannot run on this target (none: it can): the
 * command is the target's own CLI (its package's bin, or for a local server a program its
 * declaration names under `cli`), so a target without that program has nothing to run, and the
 * cell is `unsupported` with that reason rather than judged by another program.
 */
export function commandUnsupported(
  assertions: { kind: string; name: string; bin?: string }[],
  decl: TargetDecl,
): string | undefined {
  for (const a of assertions) {
    if (a.kind !== 'command' || a.bin === undefined) continue;
    if (!decl.package) {
      if (localProgram(decl, a.bin)) continue;
      const named = Object.keys(decl.cli ?? {});
      return `command judge "${a.name}" runs the target's own CLI \`${a.bin}\`, and target ${decl.name} is a local server (server.command) whose declaration names ${named.length ? `only ${named.map((n) => `\`${n}\``).join(', ')}` : 'no program'} under \`cli\``;
    }
    if (decl.package.bin !== a.bin)
      return `command judge "${a.name}" runs the target's own CLI \`${a.bin}\`, which target ${decl.name}'s package ${decl.package.npm} does not ship (its bin is \`${decl.package.bin}\`)`;
  }
  return undefined;
}

/** A local target's program of that name, declared under `cli` (a package target has none: its CLI is its bin). */
function localProgram(decl: TargetDecl, bin: string): NonNullable<TargetDecl['cli']>[string] | undefined {
  return !decl.package && decl.cli && Object.hasOwn(decl.cli, bin) ? decl.cli[bin] : undefined;
}

/** The file a bin of the installed package points at. */
function binFile(bin: ResolvedBin, name: string): string | undefined {
  try {
    const json = JSON.parse(readFileSync(join(bin.packageDir, 'package.json'), 'utf8')) as {
      bin?: string | Record<string, string>;
    };
    const rel = typeof json.bin === 'string' ? json.bin : json.bin?.[name];
    return rel ? join(bin.packageDir, rel) : undefined;
  } catch {
    return undefined;
  }
}

export interface CommandRunnerOptions {
  decl: TargetDecl;
  bin: ResolvedBin;
  fixture: Fixture;
  /** what the target's servers get beyond the declaration's env (the network guard) */
  serverEnv: Record<string, string>;
  bridges?: LoopbackBridge[];
}

/**
 * Run a command judge's command as the target's servers run: in the fixture, with its
 * isolated HOME/XDG, the declaration's env (so the CLI finds the same store), the network
 * guard, in a network namespace with only loopback where the machine allows one, stdin closed,
 * and killed (its whole process group) at the time limit. A `bin` is the package's bin of that
 * name, or for a local server the program its declaration names under `cli`.
 */
export function commandRunner(o: CommandRunnerOptions): (r: CommandRequest) => Promise<CommandRun> {
  const vars = {
    ...o.fixture.vars,
    package_dir: o.bin.packageDir,
    node: process.execPath,
    memeval_dir: PROJECT_ROOT,
  };
  const env = isolatedEnv(o.fixture, {
    ...Object.fromEntries(Object.entries(o.decl.server.env).map(([k, v]) => [k, fillString(v, vars)])),
    ...o.serverEnv,
  });
  return async (r) => {
    const args = r.run.map((a) => fillString(a, vars));
    let cmd: { command: string; args: string[] };
    const local = r.bin !== undefined ? localProgram(o.decl, r.bin) : undefined;
    if (local)
      cmd = {
        command: fillString(local.command, vars),
        args: [...local.args.map((a) => fillString(a, vars)), ...args],
      };
    else if (r.bin !== undefined && !o.decl.package)
      return notRun([r.bin, ...args], `target ${o.decl.name} names no program \`${r.bin}\` under \`cli\``);
    else if (r.bin !== undefined) {
      const file = binFile(o.bin, r.bin);
      const argv = [r.bin, ...args];
      if (!file) return notRun(argv, `the installed package at ${o.bin.packageDir} declares no bin \`${r.bin}\``);
      cmd = binCommand(file, args);
    } else cmd = { command: args[0], args: args.slice(1) };
    const launch = sandboxLaunch({ ...cmd, env, cwd: fillString(r.cwd, vars) }, o.bridges ?? []);
    return run(r.bin !== undefined ? [r.bin, ...args] : args, launch, r.timeoutMs);
  };
}

function notRun(argv: string[], why: string): CommandRun {
  return {
    argv,
    exitCode: null,
    signal: null,
    stdout: '',
    stderr: '',
    timedOut: false,
    spawnError: why,
    truncated: false,
    ms: 0,
    network: 'none',
  };
}

function run(argv: string[], launch: ReturnType<typeof sandboxLaunch>, timeoutMs: number): Promise<CommandRun> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const child = spawn(launch.command, launch.args, {
      cwd: launch.cwd,
      env: launch.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    track(child);
    let stdout = '';
    let stderr = '';
    let truncated = false;
    let timedOut = false;
    let spawnError: string | undefined;
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      if (stdout.length + d.length > COMMAND_STDOUT_MAX) {
        truncated = true;
        stdout += d.slice(0, COMMAND_STDOUT_MAX - stdout.length);
      } else stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-8000)));
    const exited = new Promise<[number | null, NodeJS.Signals | null]>((res) => {
      child.on('close', (code, signal) => res([code, signal]));
      // a spawn that failed may never close
      child.on('error', (e) => {
        spawnError = e.message;
        res([null, null]);
      });
    });
    const timer = setTimeout(() => {
      timedOut = true;
      void killTree(child, exited, 0);
    }, timeoutMs);
    void exited.then(([code, signal]) => {
      clearTimeout(timer);
      untrack(child);
      // the sandbox wrapper reports a missing program as spawn would
      const missing = /memeval: cannot start .*ENOENT/.exec(stderr);
      resolve({
        argv,
        exitCode: code,
        signal: timedOut ? null : signal,
        stdout,
        stderr,
        timedOut,
        spawnError: spawnError ?? (code === 127 && missing ? missing[0].replace('memeval: ', '') : undefined),
        truncated,
        ms: performance.now() - t0,
        network: launch.network,
      });
    });
  });
}
