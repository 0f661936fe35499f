import vm from 'node:vm';
import { MemevalError } from './errors.js';

/**
 * Regexes a declaration or scenario writes, run over what a target or agent produced. The load-time
 * check refuses nested repeats, but a pattern such as `.*.*.*.*x` is polynomial and a long result
 * text can keep it busy for hours, with Ctrl-C unanswered (a regex cannot be interrupted from
 * JavaScript). V8 does stop a regex at a vm timeout, so each match runs under one.
 */
export const DEFAULT_REGEX_TIMEOUT_MS = 2000;

export function regexTimeoutMs(): number {
  const n = Number(process.env.MEMEVAL_REGEX_TIMEOUT_MS);
  return Number.isInteger(n) && n > 0 ? n : DEFAULT_REGEX_TIMEOUT_MS;
}

export class RegexTimeout extends MemevalError {
  constructor(message: string, options?: ErrorOptions) {
    super('REGEX_TIMEOUT', message, options);
  }
}

const context = vm.createContext({});
const EXEC = new vm.Script('re.exec(s)');
const ALL = new vm.Script('Array.from(s.matchAll(re))');

function bounded<T>(script: vm.Script, re: RegExp, s: string, what: string, ms: number): T {
  context.re = re;
  context.s = s;
  try {
    return script.runInContext(context, { timeout: ms }) as T;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT')
      throw new RegexTimeout(
        `${what} /${re.source}/ timed out after ${ms} ms on ${s.length} characters (MEMEVAL_REGEX_TIMEOUT_MS changes the limit); simplify the pattern`,
        { cause: e },
      );
    throw e;
  } finally {
    // the last text may be megabytes: do not keep it alive between calls
    context.re = undefined;
    context.s = undefined;
  }
}

/** `re.exec(s)` with a time limit; `what` names the pattern in the error (e.g. "ops.remember[0].capture_id"). */
export function execBounded(re: RegExp, s: string, what: string, ms = regexTimeoutMs()): RegExpExecArray | null {
  return bounded<RegExpExecArray | null>(EXEC, re, s, what, ms);
}

/** Every match of a global `re` in `s`, with one time limit for all of them. */
export function matchAllBounded(re: RegExp, s: string, what: string, ms = regexTimeoutMs()): RegExpMatchArray[] {
  return bounded<RegExpMatchArray[]>(ALL, re, s, what, ms);
}
