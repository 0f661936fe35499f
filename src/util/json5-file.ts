import JSON5 from 'json5';
import { z } from 'zod';
import { InputError, nearest } from './errors.js';
import { MAX_NESTING, readInputFile, tooDeep } from './input-file.js';

/** Parse a JSON/JSON5 file; a syntax error names the file, line and column. */
export function readJson5File(file: string): unknown {
  const read = readInputFile(file);
  if ('problem' in read) throw new InputError(`${file}: ${read.problem}`);
  let value: unknown;
  try {
    value = JSON5.parse(read.text);
  } catch (e) {
    if (e instanceof RangeError)
      throw new InputError(`${file}: nested too deep to parse; input is limited to ${MAX_NESTING} levels`);
    const err = e as Error & { lineNumber?: number; columnNumber?: number };
    const where = err.lineNumber !== undefined ? `:${err.lineNumber}:${err.columnNumber}` : '';
    const msg = err.message.replace(/^JSON5: /, '').replace(/ at \d+:\d+$/, '');
    throw new InputError(`${file}${where}: JSON5 syntax error: ${msg}`);
  }
  // later passes (refs, templates, zod) recurse: stop a document that would overflow them here
  const deep = tooDeep(value);
  if (deep) {
    const shown = deep.length > 8 ? `${formatPath(deep.slice(0, 6))}…` : formatPath(deep);
    throw new InputError(`${file}: ${shown}: nested deeper than ${MAX_NESTING} levels; flatten it`);
  }
  return value;
}

/** Every object key that the schema knows, to suggest the nearest one for an unknown field. */
function collectKeys(schema: z.ZodType, into: Set<string>, seen = new Set<z.ZodType>()): Set<string> {
  if (seen.has(schema)) return into;
  seen.add(schema);
  const def = (schema as unknown as { _zod: { def: Record<string, unknown> } })._zod.def;
  const visit = (s: unknown) => {
    if (s && typeof s === 'object' && '_zod' in (s as object)) collectKeys(s as z.ZodType, into, seen);
  };
  if (def.type === 'object') {
    for (const [k, v] of Object.entries(def.shape as Record<string, z.ZodType>)) {
      into.add(k);
      visit(v);
    }
  }
  for (const key of ['innerType', 'element', 'in', 'out', 'valueType']) visit(def[key]);
  if (Array.isArray(def.options)) def.options.forEach(visit);
  return into;
}

export function formatPath(path: PropertyKey[]): string {
  if (path.length === 0) return '(top level)';
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join('');
}

/** The raw value at a zod issue's path, to say what was given. */
function valueAt(raw: unknown, path: PropertyKey[]): unknown {
  let cur = raw;
  for (const p of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[p];
  }
  return cur;
}

/** Turn zod issues into one line each: file, field path, what was expected, and a fix. */
export function describeIssues(file: string, error: z.ZodError, schema: z.ZodType, raw?: unknown): string[] {
  const known = collectKeys(schema, new Set());
  const lines: string[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const guess = nearest(key, known);
        const path = formatPath([...issue.path, key]);
        lines.push(`${file}: ${path}: unknown field${guess ? ` (did you mean "${guess}"?)` : '; remove it'}`);
      }
      continue;
    }
    // an unknown op, kind or enum value: say what it was and the nearest valid one
    // a schema's own message for a value it refuses (zod's defaults start "Invalid") names the fix
    const ownMessage = issue.code === 'invalid_value' && !issue.message.startsWith('Invalid');
    const choices =
      issue.code === 'invalid_value' && !ownMessage
        ? issue.values.map(String)
        : issue.code === 'invalid_union' && 'note' in issue && issue.note === 'No matching discriminator'
          ? [...issue.message.matchAll(/'([^']+)'/g)].map((m) => m[1])
          : [];
    if (choices.length) {
      const got = valueAt(raw, issue.path);
      const guess = typeof got === 'string' ? nearest(got, choices) : undefined;
      lines.push(
        `${file}: ${formatPath(issue.path)}: ${got === undefined ? 'missing' : `unknown value ${JSON.stringify(got)}`}; expected one of ${choices.join(', ')}${guess ? ` (did you mean "${guess}"?)` : ''}`,
      );
      continue;
    }
    lines.push(`${file}: ${formatPath(issue.path)}: ${issue.message}`);
  }
  return lines;
}

/** Parse and validate, or throw an InputError listing every problem. */
export function parseWith<S extends z.ZodType>(file: string, raw: unknown, schema: S): z.infer<S> {
  const result = schema.safeParse(raw);
  if (!result.success) {
    const problems = describeIssues(file, result.error, schema, raw);
    throw new InputError(problems.join('\n'), problems);
  }
  return result.data;
}
