import type { Assertion } from '../../scenario/schema.js';
import { RegexTimeout } from '../../util/bounded-regex.js';
import { clip } from '../../util/text.js';
import { SHOWN, type CommandRun, type JudgeContext } from '../context.js';
import { readIfExists, resolveFixturePath } from '../fixture-files.js';
import { judgment, type Judgment } from '../judgment.js';
import { describeTextCheck, hasTextCheck, judgeText } from '../text-checks.js';

type CommandAssertion = Extract<Assertion, { kind: 'command' }>;

/** 126: found but not executable; 127: not found (a shell's codes, and memeval's sandbox wrapper's). */
const CANNOT_RUN = new Set([126, 127]);

function expectedOf(a: CommandAssertion): string {
  return [
    a.exit_code === 'any' ? undefined : `exit ${a.exit_code}`,
    ...(a.stdout ? describeTextCheck(a.stdout).map((d) => `stdout ${d}`) : []),
    ...(a.output_file ? describeTextCheck(a.output_file).map((d) => `${a.output_file!.path} ${d}`) : []),
    a.output_file && !hasTextCheck(a.output_file) ? `${a.output_file.path} written` : undefined,
  ]
    .filter(Boolean)
    .join(' and ');
}

function shown(r: CommandRun): Record<string, unknown> {
  return {
    exit_code: r.exitCode,
    ...(r.signal ? { signal: r.signal } : {}),
    stdout: clip(r.stdout, SHOWN),
    ...(r.stderr.trim() ? { stderr: clip(r.stderr.trim().split('\n').slice(-5).join('\n'), SHOWN) } : {}),
    ms: Math.round(r.ms),
    network: r.network,
  };
}

/**
 * Run a command in the fixture after the phase (the target's own CLI: an integrity check, an
 * export, a dry run) and judge how it ended. A command that did not really run (could not
 * start, timed out, was killed, stdout cut off) judged nothing: `error`, never pass or fail.
 */
export async function judgeCommand(a: CommandAssertion, ctx: JudgeContext): Promise<Judgment> {
  const expected = expectedOf(a);
  if (!ctx.command || !ctx.fixture)
    return judgment(
      a,
      'error',
      null,
      expected,
      'the fixture this command runs in is not available (it is removed after a run)',
    );
  const r = await ctx.command({ bin: a.bin, run: a.run, cwd: a.cwd, timeoutMs: a.timeout_ms });
  const argv = r.argv.join(' ');
  const err = (why: string) => judgment(a, 'error', shown(r), expected, `${argv}: ${why}`);
  if (r.spawnError) return err(`could not start: ${r.spawnError}`);
  if (r.timedOut) return err(`timed out after ${a.timeout_ms} ms (killed)`);
  if (r.signal) return err(`killed by ${r.signal}`);
  if (r.exitCode !== null && CANNOT_RUN.has(r.exitCode) && a.exit_code !== r.exitCode)
    return err(`exit ${r.exitCode}: the command could not run (${clip(r.stderr.trim(), 200)})`);
  if (r.truncated && a.stdout) return err('stdout went past the limit and was cut: the checks would read part of it');
  const failed: string[] = [];
  if (a.exit_code !== 'any' && r.exitCode !== a.exit_code) failed.push(`exit ${r.exitCode}, expected ${a.exit_code}`);
  try {
    if (a.stdout) {
      const v = judgeText(r.stdout, a.stdout, 'stdout');
      if ('unjudgeable' in v)
        return failed.length
          ? judgment(a, 'fail', shown(r), expected, `${argv}: ${failed.join('; ')}`)
          : err(v.unjudgeable);
      failed.push(...v.failed);
    }
    if (a.output_file) {
      const abs = resolveFixturePath(ctx.fixture, a.output_file.path);
      if (!abs) return err(`output_file ${a.output_file.path} leaves the fixture`);
      const text = readIfExists(abs);
      if (text === undefined) return err(`it wrote no file at ${a.output_file.path}`);
      const v = judgeText(text, a.output_file, a.output_file.path);
      if ('unjudgeable' in v) return err(v.unjudgeable);
      failed.push(...v.failed);
    }
  } catch (e) {
    if (e instanceof RegexTimeout) return err(`judge timed out: ${e.message}`);
    throw e;
  }
  return judgment(
    a,
    failed.length ? 'fail' : 'pass',
    shown(r),
    expected,
    failed.length ? `${argv}: ${failed.join('; ')}` : argv,
  );
}

/** Load-time checks: placeholders the fixture has; a check that names something to judge. */
export function checkCommand(a: CommandAssertion): string[] {
  const known = ['fixture', 'project', 'home', 'data', 'tmp', 'package_dir'];
  const problems: string[] = [];
  const fields: [string, string][] = [
    ...a.run.map((v, i): [string, string] => [`run[${i}]`, v]),
    ['cwd', a.cwd],
    ...(a.output_file ? [['output_file.path', a.output_file.path] as [string, string]] : []),
  ];
  for (const [field, v] of fields)
    for (const m of v.matchAll(/\{\{\s*(\w+)\s*\}\}/g))
      if (!known.includes(m[1]))
        problems.push(`${field}: unknown placeholder {{${m[1]}}} (known: ${known.join(', ')})`);
  if (a.exit_code === 'any' && !(a.stdout && hasTextCheck(a.stdout)) && !a.output_file)
    problems.push('exit_code: "any" with no stdout or output_file check judges nothing; give one or an exit code');
  if (a.stdout && !hasTextCheck(a.stdout))
    problems.push('stdout: give contains, not_contains, regex or json (an empty check judges nothing)');
  return problems;
}
