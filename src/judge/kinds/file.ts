import type { Assertion } from '../../scenario/schema.js';
import { execBounded, RegexTimeout } from '../../util/bounded-regex.js';
import { SHOWN, textMatch, type JudgeContext } from '../context.js';
import { clip } from '../../util/text.js';
import { readIfExists, resolveFixturePath } from '../fixture-files.js';
import { decided, judgment, type Judgment } from '../judgment.js';
import { messageOf } from '../../util/errors.js';

type FileAssertion = Extract<Assertion, { kind: 'file' }>;

/** A fixture path exists (or not), contains, does not contain, matches. */
export function judgeFile(a: FileAssertion, ctx: JudgeContext): Judgment {
  const expected = [
    a.exists ? 'exists' : 'does not exist',
    a.contains !== undefined && `contains "${a.contains}"`,
    a.not_contains !== undefined && `does not contain "${a.not_contains}"`,
    a.regex !== undefined && `matches /${a.regex}/`,
  ]
    .filter(Boolean)
    .join(' and ');
  if (!ctx.fixture) return judgment(a, 'error', null, expected, 'the fixture is not available to this judge');
  const abs = resolveFixturePath(ctx.fixture, a.path);
  if (!abs) return judgment(a, 'error', null, expected, `${a.path} leaves the fixture`);
  const text = readIfExists(abs);
  if (text === undefined)
    return decided(a, !a.exists, { actual: 'missing', expected, detail: a.path, observed: `no file at ${abs}` });
  const seen = `${abs}: ${text.length} character(s)`;
  if (!a.exists) return decided(a, false, { actual: 'exists', expected, detail: a.path, observed: seen });
  let matched: boolean;
  try {
    matched =
      a.regex === undefined || execBounded(new RegExp(a.regex, a.case_sensitive ? '' : 'i'), text, 'regex') !== null;
  } catch (e) {
    if (e instanceof RegexTimeout)
      return judgment(a, 'error', clip(text, SHOWN), expected, `judge timed out: ${e.message}`);
    throw e;
  }
  const ok =
    (a.contains === undefined || textMatch(text, a.contains, a.case_sensitive)) &&
    (a.not_contains === undefined || !textMatch(text, a.not_contains, a.case_sensitive)) &&
    matched;
  return decided(a, ok, { actual: clip(text, SHOWN), expected, detail: a.path, observed: seen });
}

/** Load-time checks: the regex compiles; the path names no placeholder a fixture lacks. */
export function checkFile(a: FileAssertion): string[] {
  const problems: string[] = [];
  for (const m of a.path.matchAll(/\{\{\s*(\w+)\s*\}\}/g))
    if (!['fixture', 'project', 'home', 'data', 'tmp'].includes(m[1]))
      problems.push(`path: unknown placeholder {{${m[1]}}} (known: fixture, project, home, data, tmp)`);
  if (a.regex !== undefined)
    try {
      new RegExp(a.regex, a.case_sensitive ? '' : 'i');
    } catch (e) {
      problems.push(`regex: ${messageOf(e)}`);
    }
  return problems;
}
