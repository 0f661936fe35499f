import { MEMORY_OPS } from '../scenario/schema.js';
import { STEP_OPS } from '../scenario/step-ops.js';
import type { TargetDecl } from './schema.js';
import { emptyPattern } from './recall-empty.js';
import { messageOf } from '../util/errors.js';

const FILTERS = ['number', 'json'];
const PLACEHOLDER = /\{\{\s*([^}|]*?)\s*(?:\|\s*([^}]*?)\s*)?\}\}/g;

function strings(value: unknown, path: string): { path: string; text: string }[] {
  if (typeof value === 'string') return [{ path, text: value }];
  if (Array.isArray(value)) return value.flatMap((v, i) => strings(v, `${path}[${i}]`));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => strings(v, `${path}.${k}`));
  return [];
}

function regexProblem(pattern: string, flags: string): string | undefined {
  try {
    new RegExp(pattern, flags);
    return undefined;
  } catch (e) {
    return messageOf(e);
  }
}

/**
 * Checks a run would otherwise only hit mid-cell: op templates naming values the op does not
 * have (`{{contnet}}`), unknown filters, and regexes (capture_id, recall_results) that do not compile.
 */
export function checkOps(decl: TargetDecl): string[] {
  const problems: string[] = [];
  for (const op of MEMORY_OPS) {
    (decl.ops[op] ?? []).forEach((call, i) => {
      const where = `ops.${op}[${i}]`;
      for (const s of strings(call.args, `${where}.args`))
        for (const m of s.text.matchAll(PLACEHOLDER)) {
          const [, name, filter] = m;
          if (!STEP_OPS[op].vars.includes(name)) {
            const known = STEP_OPS[op].vars.length ? STEP_OPS[op].vars.map((v) => `{{${v}}}`).join(', ') : 'none';
            problems.push(`${s.path}: {{${name}}} is not a value of the ${op} op (known: ${known})`);
          }
          if (filter !== undefined && !FILTERS.includes(filter))
            problems.push(`${s.path}: unknown filter "|${filter}" (use |number or |json)`);
        }
      if (call.capture_id !== undefined) {
        const p = regexProblem(call.capture_id, 'm');
        if (p) problems.push(`${where}.capture_id: ${p}`);
      }
    });
  }
  if (decl.recall_results?.regex !== undefined) {
    const p = regexProblem(decl.recall_results.regex, 'gmu');
    if (p) problems.push(`recall_results.regex: ${p}`);
  }
  if (decl.recall_results?.empty?.regex !== undefined) {
    let p: string | undefined;
    try {
      emptyPattern(decl.recall_results.empty.regex, 'a query');
    } catch (e) {
      p = messageOf(e);
    }
    if (p) problems.push(`recall_results.empty.regex: ${p}`);
  }
  return problems;
}
