import JSON5 from 'json5';
import { z } from 'zod';
import { InputError, nearest } from './errors.js';
import { MAX_NESTING, readInputFile, tooDeep } from './input-file.js';

/** Parse a JSON/JSON5 file; a syntax error names the file, line and column. */
export function readJson5File(file: string): unknown {
  const read = readJson5Recovering(file);
  if (read.problems.length) throw new InputError(read.problems.join('\n'), read.problems);
  return read.value;
}

export interface Json5Read {
  /** the document, parsed after repairing the syntax errors named in `problems` (absent if none could be) */
  value?: unknown;
  problems: string[];
}

/** How many missing commas one file may have repaired before the rest of it is checked. */
const MAX_REPAIRS = 20;

/**
 * Parse a JSON/JSON5 file, naming each syntax error at its real place. A missing comma between two
 * items (the common slip, which JSON5 reports as an invalid character on the next line) is named as
 * such, and parsing goes on as if it were there, so the checks after it see the rest of the file in
 * the same pass. `problems` is never empty when the text was not valid: the caller still fails.
 */
export function readJson5Recovering(file: string): Json5Read {
  const read = readInputFile(file);
  if ('problem' in read) return { problems: [`${file}: ${read.problem}`] };
  const problems: string[] = [];
  let text = read.text;
  for (let repairs = 0; ; repairs++) {
    const parsed = parseJson5(text);
    if ('value' in parsed) {
      // later passes (refs, templates, zod) recurse: stop a document that would overflow them here
      const deep = tooDeep(parsed.value);
      if (deep) {
        const shown = deep.length > 8 ? `${formatPath(deep.slice(0, 6))}…` : formatPath(deep);
        return { problems: [...problems, `${file}: ${shown}: nested deeper than ${MAX_NESTING} levels; flatten it`] };
      }
      return { value: parsed.value, problems };
    }
    const err = parsed.error;
    if (err instanceof RangeError)
      return {
        problems: [...problems, `${file}: nested too deep to parse; input is limited to ${MAX_NESTING} levels`],
      };
    const line = err.lineNumber;
    const col = err.columnNumber;
    const msg = err.message.replace(/^JSON5: /, '').replace(/ at \d+:\d+$/, '');
    const at = line !== undefined && col !== undefined ? offsetOf(text, line, col) : undefined;
    const comma = at !== undefined && repairs < MAX_REPAIRS ? missingComma(text, at) : undefined;
    if (comma === undefined) {
      problems.push(`${file}${line !== undefined ? `:${line}:${col}` : ''}: JSON5 syntax error: ${msg}`);
      return { problems };
    }
    const before = positionOf(text, comma.after);
    problems.push(
      `${file}:${before.line}:${before.col}: JSON5 syntax error: missing ',' after this item (the next one starts at ${line}:${col}); add a comma`,
    );
    text = comma.text;
  }
}

function parseJson5(
  text: string,
): { value: unknown } | { error: Error & { lineNumber?: number; columnNumber?: number } } {
  try {
    return { value: JSON5.parse(text) };
  } catch (e) {
    return { error: e as Error };
  }
}

/** The text with a comma put before offset `at`, when that gets the parser past `at`: the error was a missing comma. */
function missingComma(text: string, at: number): { text: string; after: number } | undefined {
  if (!/[[{"'\w$-]/.test(text[at] ?? '')) return undefined;
  let prev = at - 1;
  while (prev >= 0 && /\s/.test(text[prev])) prev--;
  // only between two items: the one before ends in a value, not in `:`, `,` or an opening bracket
  if (prev < 0 || /[,:[{]/.test(text[prev])) return undefined;
  const repaired = `${text.slice(0, at)},${text.slice(at)}`;
  const again = parseJson5(repaired);
  if ('error' in again && again.error.lineNumber !== undefined) {
    const next = offsetOf(repaired, again.error.lineNumber, again.error.columnNumber ?? 1);
    if (next <= at + 1) return undefined;
  }
  return { text: repaired, after: prev + 1 };
}

function offsetOf(text: string, line: number, col: number): number {
  let offset = 0;
  for (let l = 1; l < line; l++) {
    const nl = text.indexOf('\n', offset);
    if (nl < 0) return text.length;
    offset = nl + 1;
  }
  return offset + col - 1;
}

function positionOf(text: string, offset: number): { line: number; col: number } {
  const lines = text.slice(0, offset).split('\n');
  return { line: lines.length, col: lines[lines.length - 1].length + 1 };
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
