import type { LoadedScenario } from '../../scenario/loader.js';
import { flatSteps, MEMORY_OPS } from '../../scenario/schema.js';
import type { TargetDecl } from '../../targets/schema.js';
import { nearest } from '../../util/errors.js';
import { fail, pass, skip, type CheckPoint } from './points.js';

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

/** The memory fields a scenario fills and a declaration may pass to an argument with a fixed list of values. */
const LISTED_FIELDS = ['category', 'subject', 'source'] as const;
export type FieldValues = Record<(typeof LISTED_FIELDS)[number], Set<string>>;

/** Every category, subject and source the scenarios write with (the declaration's defaults where they give none). */
export function scenarioFieldValues(decl: TargetDecl, scenarios: LoadedScenario[]): FieldValues {
  const out: FieldValues = { category: new Set(), subject: new Set(), source: new Set() };
  for (const { scenario: s } of scenarios) {
    const steps = flatSteps([
      ...s.setup.steps,
      ...s.deterministic.well_behaved,
      ...(s.deterministic.violation?.steps ?? []),
    ]);
    const written = [...s.setup.memories, ...steps.flatMap((st) => (st.op === 'remember' ? [st] : []))];
    for (const m of written) for (const f of LISTED_FIELDS) out[f].add(m[f] ?? decl.defaults[f]);
  }
  return out;
}

/**
 * A call's arguments whose input-schema property lists its values (`enum`) and that the
 * declaration fills with a memory field the scenarios give values outside that list: the server
 * would refuse those writes, and a run would blame it (or count the refusal as a defence) for
 * the declaration's mapping.
 */
function enumProblems(schema: InputSchema, args: Record<string, unknown>, values: FieldValues): string[] {
  const props = (schema.properties ?? {}) as Record<string, { enum?: unknown[] }>;
  const problems: string[] = [];
  for (const [name, template] of Object.entries(args)) {
    const allowed = props[name]?.enum;
    if (!Array.isArray(allowed) || typeof template !== 'string') continue;
    const field = /^\{\{\s*(?:memory\.)?(category|subject|source)\s*\}\}$/.exec(template)?.[1] as
      keyof FieldValues | undefined;
    if (!field) continue;
    const refused = [...values[field]].filter((v) => !allowed.includes(v));
    if (refused.length)
      problems.push(
        `argument "${name}" is filled with {{${field}}}, and the scenarios write ${field} values its input schema's enum refuses: ${refused.slice(0, 6).join(', ')}${refused.length > 6 ? ', …' : ''} (enum: ${allowed.join(', ')})`,
      );
  }
  return problems;
}

/**
 * Each declared call's tool is in `tools/list`, with argument names its input schema lists, and
 * (given the values the scenarios write) no argument with a fixed list of values filled with one
 * outside it.
 */
export function toolPoints(decl: TargetDecl, schemas: Map<string, InputSchema>, values?: FieldValues): CheckPoint[] {
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
      else if (values && enumProblems(schema, call.args, values).length)
        points.push(
          fail(
            'tool',
            subject,
            enumProblems(schema, call.args, values).join('; '),
            `give ops.${op}[${i}].args a value its enum allows (a constant such as the target's own kind for notes), or leave the argument out`,
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
