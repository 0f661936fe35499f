import type { Scenario, Step } from './schema.js';
import { actedOnRef, createdRef, MEMORY_FIELDS } from './step-ops.js';

export const REF_PREFIX = '$ref:';

/** What `$ref:name.<field>` may pick from a stored memory. */
export const REF_FIELDS: readonly string[] = MEMORY_FIELDS;

function getAt(value: unknown, path: string): unknown {
  let cur = value;
  for (const part of path.match(/[^.[\]]+/g) ?? []) cur = (cur as Record<string, unknown>)?.[part];
  return cur;
}

/** Names a `$ref:` string points at, or undefined when it is not a ref. */
export function refName(value: unknown): string | undefined {
  return parseRef(value)?.name;
}

/** `$ref:name` is the memory itself (its id); `$ref:name.content` picks one field of it. */
export function parseRef(value: unknown): { name: string; field?: string } | undefined {
  if (typeof value !== 'string' || !value.startsWith(REF_PREFIX)) return undefined;
  const [name, field] = value.slice(REF_PREFIX.length).split('.', 2);
  return { name, field };
}

/** Replace every `$ref:` string inside a value using `lookup`. */
export function resolveRefs(value: unknown, lookup: (name: string, field?: string) => unknown): unknown {
  const ref = parseRef(value);
  if (ref) return lookup(ref.name, ref.field);
  if (Array.isArray(value)) return value.map((v) => resolveRefs(v, lookup));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveRefs(v, lookup)]));
  return value;
}

/** Every `$ref:<name>` found anywhere inside a value, with its JSON path. */
export function findRefs(value: unknown, path = ''): { name: string; path: string }[] {
  const name = refName(value);
  if (name !== undefined) return [{ name, path }];
  if (Array.isArray(value)) return value.flatMap((v, i) => findRefs(v, `${path}[${i}]`));
  if (value && typeof value === 'object')
    return Object.entries(value).flatMap(([k, v]) => findRefs(v, path ? `${path}.${k}` : k));
  return [];
}

/**
 * Check that every ref a step uses is defined before it: by a setup memory, or by an
 * earlier `remember` step of the same phase. Returns problems as `path: message`.
 */
export function checkRefs(scenario: Scenario): string[] {
  const problems: string[] = [];
  const seeded = new Set<string>();
  scenario.setup.memories.forEach((m, i) => {
    if (seeded.has(m.ref)) problems.push(`setup.memories[${i}].ref: "${m.ref}" is defined twice`);
    seeded.add(m.ref);
  });
  const checkSteps = (steps: Step[], where: string) => {
    const known = new Set(seeded);
    const checkStep = (step: Exclude<Step, { op: 'parallel' }>, at: string) => {
      for (const r of findRefs(step)) {
        const field = parseRef(getAt(step, r.path))?.field;
        if (field !== undefined && !REF_FIELDS.includes(field))
          problems.push(
            `${at}.${r.path}: "$ref:${r.name}.${field}": a memory has no field "${field}" (fields: ${REF_FIELDS.join(', ')})`,
          );
        if (!known.has(r.name)) {
          const hint = known.size
            ? ` (known: ${[...known].join(', ')})`
            : ' (no memory is named yet: add a setup memory or a remember step with `ref`)';
          problems.push(`${at}.${r.path}: unknown ref "${r.name}"${hint}`);
        }
      }
      const acted = actedOnRef(step);
      if (acted !== undefined && refName(acted) === undefined)
        problems.push(`${at}.memory: expected "$ref:<name>" naming a setup memory or an earlier remember step`);
    };
    steps.forEach((step, i) => {
      if (step.op === 'parallel') {
        // the steps of a parallel step race: one cannot use a memory another of them stores
        step.steps.forEach((inner, j) => checkStep(inner, `${where}[${i}].steps[${j}]`));
        for (const inner of step.steps) {
          const ref = createdRef(inner);
          if (ref) known.add(ref);
        }
        return;
      }
      checkStep(step, `${where}[${i}]`);
      const ref = createdRef(step);
      if (ref) known.add(ref);
    });
  };
  checkSteps(scenario.deterministic.well_behaved, 'deterministic.well_behaved');
  if (scenario.deterministic.violation)
    checkSteps(scenario.deterministic.violation.steps, 'deterministic.violation.steps');
  return problems;
}
