import { MemevalError } from './errors.js';

const WHOLE = /^\{\{\s*([A-Za-z_][\w.]*)\s*(?:\|\s*(\w+)\s*)?\}\}$/;
const PART = /\{\{\s*([A-Za-z_][\w.]*)\s*(?:\|\s*(\w+)\s*)?\}\}/g;

/** `{{x|number}}` for servers that want numeric ids; `{{x|json}}` to embed a value as JSON text. */
function applyFilter(v: unknown, filter: string | undefined, name: string): unknown {
  if (!filter) return v;
  if (filter === 'number') {
    const n = Number(v);
    if (Number.isNaN(n)) throw new TemplateError(`{{${name}|number}}: ${JSON.stringify(v)} is not a number`);
    return n;
  }
  if (filter === 'json') return JSON.stringify(v);
  throw new TemplateError(`{{${name}|${filter}}}: unknown filter (use number or json)`);
}

function lookup(vars: Record<string, unknown>, path: string): unknown {
  let cur: unknown = vars;
  for (const part of path.split('.')) {
    if (cur === null || typeof cur !== 'object' || !(part in (cur as object))) return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

export class TemplateError extends MemevalError {
  constructor(message: string) {
    super('TEMPLATE', message);
  }
}

/**
 * Fill {{placeholders}} in a JSON-like value. A string that is one placeholder takes the
 * value's own type (so arrays and numbers survive); embedded placeholders become text.
 */
export function fillTemplate(value: unknown, vars: Record<string, unknown>): unknown {
  if (typeof value === 'string') {
    const whole = WHOLE.exec(value);
    if (whole) {
      const v = lookup(vars, whole[1]);
      if (v === undefined) throw new TemplateError(`no value for {{${whole[1]}}}`);
      return applyFilter(v, whole[2], whole[1]);
    }
    return value.replace(PART, (_, name: string, filter?: string) => {
      const raw = lookup(vars, name);
      if (raw === undefined) throw new TemplateError(`no value for {{${name}}}`);
      const v = applyFilter(raw, filter, name);
      return typeof v === 'string' ? v : JSON.stringify(v);
    });
  }
  if (Array.isArray(value)) return value.map((v) => fillTemplate(v, vars));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fillTemplate(v, vars)]));
  return value;
}

export function fillString(value: string, vars: Record<string, unknown>): string {
  return String(fillTemplate(value, vars));
}
