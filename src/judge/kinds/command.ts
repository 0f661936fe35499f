import type { Assertion } from '../../scenario/schema.js';
import { RegexTimeout } from '../../util/bounded-regex.js';
import { clip } from '../../util/text.js';
import { SHOWN, type CommandRun, type JudgeContext } from '../context.js';
import { readIfExists, resolveFixturePath } from '../fixture-files.js';
import { decided, judgment, type Judgment } from '../judgment.js';
import { describeTextCheck, hasTextCheck, judgeText } from '../text-checks.js';
import type { TextCheck } from '../../scenario/judge-kinds-schema.js';

type CommandAssertion = Extract<Assertion, { kind: 'command' }>;

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

const firstLine = (s: string) => clip(s.trim().split('\n')[0] ?? '', 200);

/** A check that can only hold when the text holds something (not_contains alone holds on nothing). */
export function positiveTextCheck(c: Partial<TextCheck>): boolean {
  return c.contains !== undefined || c.regex !== undefined || c.json !== undefined;
}

/**
 * Run a command in the fixture after the phase (the target's own CLI: an integrity check, an
 * export, a dry run) and judge how it ended. Only the exits the scenario declares decide:
 * `exit_code` (the run read what it judges; its output checks decide) and `failing_exit_codes`
 * (the program found the problem: a fail). Any other exit (a program that rejected its
 * arguments, one that crashed) judged nothing, and so did a command that could not start,
 * timed out, was killed, cut its stdout, or printed nothing its checks could read: `error`.
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
  if (r.exitCode === null) return err('ended without an exit status');
  const stderr = r.stderr.trim() ? `; stderr: ${firstLine(r.stderr)}` : '; nothing on stderr';
  if (a.failing_exit_codes.includes(r.exitCode))
    return decided(a, false, {
      actual: shown(r),
      expected,
      detail: `${argv}: exit ${r.exitCode}, which the scenario declares as finding the problem`,
      observed: `exit ${r.exitCode} (declared in failing_exit_codes)${stderr}`,
    });
  if (a.exit_code !== 'any' && r.exitCode !== a.exit_code)
    return err(
      `exit ${r.exitCode} is not an exit the scenario declares meaningful (exit_code ${a.exit_code}${a.failing_exit_codes.length ? `, failing_exit_codes ${a.failing_exit_codes.join(', ')}` : ''}): the program did not judge the store${stderr}`,
    );
  const read: string[] = [`exit ${r.exitCode}`];
  const failed: string[] = [];
  try {
    if (a.stdout) {
      if (r.truncated) return err('stdout went past the limit and was cut: the checks would read part of it');
      if (!r.stdout.trim())
        return err(`it printed nothing on stdout, so the stdout checks would read nothing${stderr}`);
      const v = judgeText(r.stdout, a.stdout, 'stdout');
      if ('unjudgeable' in v) return err(v.unjudgeable);
      failed.push(...v.failed);
      read.push(`${r.stdout.length} character(s) of stdout`);
    }
    if (a.output_file) {
      const abs = resolveFixturePath(ctx.fixture, a.output_file.path);
      if (!abs) return err(`output_file ${a.output_file.path} leaves the fixture`);
      const text = readIfExists(abs);
      if (text === undefined) return err(`it wrote no file at ${a.output_file.path}`);
      if (hasTextCheck(a.output_file) && !text.trim())
        return err(`the file it wrote at ${a.output_file.path} is empty, so its checks would read nothing`);
      const v = judgeText(text, a.output_file, a.output_file.path);
      if ('unjudgeable' in v) return err(v.unjudgeable);
      failed.push(...v.failed);
      read.push(`${text.length} character(s) of ${a.output_file.path}`);
    }
  } catch (e) {
    if (e instanceof RegexTimeout) return err(`judge timed out: ${e.message}`);
    throw e;
  }
  return decided(a, !failed.length, {
    actual: shown(r),
    expected,
    detail: failed.length ? `${argv}: ${failed.join('; ')}` : argv,
    observed: read.join(', '),
  });
}

/** Load-time checks: placeholders the fixture has; checks that can tell a program that read nothing. */
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
  const positive = (a.stdout && positiveTextCheck(a.stdout)) || (a.output_file && positiveTextCheck(a.output_file));
  if (a.exit_code === 'any' && !positive)
    problems.push(
      a.stdout || a.output_file
        ? 'exit_code: "any" with only negative checks (not_contains) passes a program that read nothing and exited non-zero; add a positive check (contains, regex or json) or give the exit code of a run that read the store'
        : 'exit_code: "any" with no stdout or output_file check judges nothing; give one or an exit code',
    );
  if (a.stdout && !hasTextCheck(a.stdout))
    problems.push('stdout: give contains, not_contains, regex or json (an empty check judges nothing)');
  if (a.exit_code !== 'any' && a.failing_exit_codes.includes(a.exit_code))
    problems.push(
      `failing_exit_codes: ${a.exit_code} is also exit_code; an exit means either "read the store, judge the output" or "found the problem", not both`,
    );
  return problems;
}
