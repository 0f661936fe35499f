import { MEMORY_OPS } from '../scenario/schema.js';
import type { TargetDecl } from '../targets/schema.js';
import { nearest } from '../util/errors.js';
import { fail, pass, skip, type CheckPoint } from './check-points.js';

/** A tool's input schema as `tools/list` gives it (JSON Schema, an object). */
export type InputSchema = Record<string, unknown>;

/**
 * How a declared call's argument names fit a tool's input schema: names the schema does not list
 * (with the nearest listed one) and required names the call does not supply. `unknown` when the
 * schema lists no properties at all: its names cannot be checked here (the calls themselves are).
 */
export function argumentProblems(
  schema: InputSchema | undefined,
  args: Record<string, unknown>,
): { problems: string[]; listed: string[] } | 'unknown' {
  const props = schema?.properties;
  const listed = props && typeof props === 'object' ? Object.keys(props) : [];
  const required = Array.isArray(schema?.required) ? (schema.required as unknown[]).map(String) : [];
  if (!listed.length && !required.length) return Object.keys(args).length ? 'unknown' : { problems: [], listed };
  const problems: string[] = [];
  for (const name of Object.keys(args))
    if (!listed.includes(name)) {
      const guess = nearest(name, listed);
      problems.push(`argument "${name}" is not in its input schema${guess ? ` (did you mean "${guess}"?)` : ''}`);
    }
  for (const name of required) if (!(name in args)) problems.push(`required argument "${name}" is not supplied`);
  return { problems, listed };
}

/** Each declared call's tool is in `tools/list`, with argument names its input schema lists. */
export function toolPoints(decl: TargetDecl, schemas: Map<string, InputSchema>): CheckPoint[] {
  const points: CheckPoint[] = [];
  const listed = [...schemas.keys()];
  for (const op of MEMORY_OPS)
    (decl.ops[op] ?? []).forEach((call, i) => {
      const subject = `ops.${op}[${i}] ${call.tool}`;
      const schema = schemas.get(call.tool);
      if (!schema) {
        const guess = nearest(call.tool, listed);
        points.push(
          fail(
            'tool',
            subject,
            `tools/list has no tool "${call.tool}"`,
            `${guess ? `did you mean "${guess}"? ` : ''}set ops.${op}[${i}].tool to one of: ${listed.join(', ') || '(none listed)'}`,
          ),
        );
        return;
      }
      const fit = argumentProblems(schema, call.args);
      if (fit === 'unknown')
        points.push(
          skip('tool', subject, 'listed; its input schema names no properties, so the argument names are not checked'),
        );
      else if (fit.problems.length)
        points.push(
          fail(
            'tool',
            subject,
            fit.problems.join('; '),
            `use the names of its input schema in ops.${op}[${i}].args: ${fit.listed.join(', ') || '(none)'}`,
          ),
        );
      else
        points.push(
          pass(
            'tool',
            subject,
            `listed; arguments ${Object.keys(call.args).join(', ') || '(none)'} fit its input schema`,
          ),
        );
    });
  return points;
}
