import type { MemoryOp } from '../../scenario/schema.js';

/** A JSON Schema as a server lists it for a tool's input: only the parts the drafting reads. */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  default?: unknown;
  minimum?: number;
  minItems?: number;
  minLength?: number;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  $ref?: string;
  $defs?: Record<string, JsonSchema>;
  definitions?: Record<string, JsonSchema>;
}

/** The ops `targets new` drafts (curate has no common tool shape). */
export type DraftOp = Exclude<MemoryOp, 'curate' | 'curate_dry_run' | 'expire'>;
export const DRAFT_OPS: DraftOp[] = ['remember', 'recall', 'forget', 'update'];

/** The verbs in a tool's name that say which op it is. */
const OP_VERBS: Record<DraftOp, string[]> = {
  remember: ['remember', 'store', 'add', 'save', 'create', 'memorize', 'memorise', 'write', 'insert', 'put', 'record'],
  recall: ['search', 'recall', 'query', 'find', 'retrieve', 'lookup'],
  forget: ['delete', 'forget', 'remove', 'erase'],
  update: ['update', 'edit', 'modify', 'replace', 'revise'],
};
/** Nouns that say a tool is about memories, not their side structures. */
const MEMORY_NOUNS = [
  'memory',
  'memories',
  'observation',
  'observations',
  'entity',
  'entities',
  'context',
  'note',
  'notes',
  'knowledge',
  'fact',
  'facts',
  'item',
  'items',
  'entry',
  'entries',
];
/** Nouns of side structures: a tool about them is a worse match for an op on one memory. */
const SIDE_NOUNS = [
  'relation',
  'relations',
  'tag',
  'tags',
  'session',
  'sessions',
  'channel',
  'project',
  'projects',
  'checkpoint',
  'file',
  'files',
  'link',
  'links',
  'edge',
  'edges',
  'batch',
  'bulk',
  'index',
  'collection',
  'namespace',
  'graph',
];

/** "context_batch_delete", "addObservations", "search-nodes" → their lower-case words. */
export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/** What a property of a tool's input stands for, by its name's words. */
type Role = 'content' | 'query' | 'id' | 'name' | 'category' | 'subject' | 'source' | 'other';

const ROLE_WORDS: [Role, string[]][] = [
  ['query', ['query', 'q', 'search', 'keyword', 'keywords', 'term', 'terms']],
  ['id', ['id', 'ids', 'uuid']],
  [
    'content',
    [
      'content',
      'contents',
      'text',
      'value',
      'observation',
      'observations',
      'memory',
      'body',
      'note',
      'fact',
      'narrative',
      'information',
      'message',
      'details',
    ],
  ],
  ['name', ['name', 'names', 'key', 'keys', 'title', 'slug', 'label', 'topic']],
  ['category', ['category', 'type', 'kind', 'entitytype']],
  ['subject', ['subject', 'user', 'owner']],
  ['source', ['source', 'origin', 'channel']],
];

export function propertyRole(prop: string): Role {
  const words = nameWords(prop);
  const last = words.at(-1) ?? '';
  // an id of something else (a session, a parent) is not the memory's
  if (words.length > 1 && ['id', 'ids'].includes(last) && !MEMORY_NOUNS.includes(words.at(-2)!)) return 'other';
  // the last word names the thing ("entityName" is a name, "memoryId" an id)
  for (const [role, names] of ROLE_WORDS) if (names.includes(last)) return role;
  if (words.join('') === 'entitytype') return 'category';
  return 'other';
}

/** Resolve a local $ref and pick the first non-null branch of anyOf/oneOf. */
function resolveSchema(s: JsonSchema | undefined, root: JsonSchema): JsonSchema {
  let cur = s ?? {};
  for (let i = 0; i < 8; i++) {
    if (cur.$ref) {
      const m = /^#\/(\$defs|definitions)\/(.+)$/.exec(cur.$ref);
      cur = (m && root[m[1] as '$defs' | 'definitions']?.[m[2]]) || {};
      continue;
    }
    const branches = cur.anyOf ?? cur.oneOf;
    // a schema with its own properties keeps them; its branches only add required names
    if (branches && !cur.properties) {
      cur = branches.find((b) => b.type !== 'null') ?? {};
      continue;
    }
    break;
  }
  return cur;
}

const typeOf = (s: JsonSchema): string | undefined =>
  Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : (s.type ?? (s.properties ? 'object' : undefined));

/** What each role's placeholder is in each op (undefined: the op has no such value). */
const PLACEHOLDERS: Record<DraftOp, Partial<Record<Role, string>>> = {
  remember: {
    content: '{{content}}',
    name: '{{key}}',
    category: '{{category}}',
    subject: '{{subject}}',
    source: '{{source}}',
  },
  recall: { query: '{{query}}', content: '{{query}}' },
  forget: { id: '{{memory.id}}', name: '{{memory.key}}', content: '{{memory.content}}', subject: '{{memory.subject}}' },
  update: {
    content: '{{content}}',
    id: '{{memory.id}}',
    name: '{{memory.key}}',
    subject: '{{memory.subject}}',
    category: '{{memory.category}}',
  },
};

/** Preferred values of a free-text enum such as a memory's type. */
const ENUM_PREFERENCE = [
  'note',
  'fact',
  'general',
  'memory',
  'preference',
  'observation',
  'other',
  'info',
  'discovery',
];

function constantFor(s: JsonSchema): unknown {
  if (s.default !== undefined) return s.default;
  if (s.enum?.length) return s.enum.find((v) => ENUM_PREFERENCE.includes(String(v))) ?? s.enum[0];
  switch (typeOf(s)) {
    case 'number':
    case 'integer':
      return s.minimum !== undefined ? Math.max(s.minimum, 1) : 1;
    case 'boolean':
      return false;
    case 'array':
      return [];
    case 'object':
      return {};
    default:
      return 'memeval';
  }
}

/** What one filled argument came from: `placeholder` (a memory's value) or `constant` (a person may want to change it). */
export interface ArgNote {
  path: string;
  kind: 'placeholder' | 'constant';
  value: unknown;
}

/**
 * Fill a tool's arguments from its input schema for one op: properties whose names say what
 * they hold get the op's values, other required ones a constant the schema allows, optional
 * ones nothing. An array of objects (create_entities' `entities`) gets one item filled the same way.
 */
export function fillArgs(
  schema: JsonSchema,
  op: DraftOp,
  root: JsonSchema = schema,
  path = '',
  notes: ArgNote[] = [],
): { args: Record<string, unknown>; notes: ArgNote[] } {
  const s = resolveSchema(schema, root);
  const args: Record<string, unknown> = {};
  // "one of these must be given" (anyOf: [{required: [a]}, {required: [b]}]): the first
  const required = new Set([...(s.required ?? []), ...((s.anyOf ?? s.oneOf)?.[0]?.required ?? [])]);
  for (const [prop, raw] of Object.entries(s.properties ?? {})) {
    const p = resolveSchema(raw, root);
    const at = path ? `${path}.${prop}` : prop;
    const v = fillValue(prop, p, op, root, at, notes, required.has(prop));
    if (v !== undefined) args[prop] = v;
  }
  return { args, notes };
}

function fillValue(
  prop: string,
  p: JsonSchema,
  op: DraftOp,
  root: JsonSchema,
  at: string,
  notes: ArgNote[],
  required: boolean,
): unknown {
  const role = propertyRole(prop);
  const placeholder = PLACEHOLDERS[op][role];
  const t = typeOf(p);
  if (t === 'array') {
    const item = resolveSchema(p.items, root);
    if (typeOf(item) === 'object') {
      const inner = fillArgs(item, op, root, `${at}[0]`, notes).args;
      return Object.keys(inner).length || required ? [inner] : undefined;
    }
    if (placeholder && !item.enum) {
      notes.push({ path: at, kind: 'placeholder', value: [placeholder] });
      return [placeholder];
    }
  } else if (t === 'object') {
    if (!required) return undefined;
    return fillArgs(p, op, root, at, notes).args;
  } else if (placeholder && !p.enum && (t === undefined || t === 'string')) {
    notes.push({ path: at, kind: 'placeholder', value: placeholder });
    return placeholder;
  } else if (placeholder && (t === 'number' || t === 'integer') && role === 'id') {
    const v = `${placeholder.slice(0, -2)}|number}}`;
    notes.push({ path: at, kind: 'placeholder', value: v });
    return v;
  }
  if (!required) return undefined;
  // a required path (projectPath) is checked for being absolute by some servers
  let value =
    /(path|dir|directory|root)$/i.test(prop) && t === 'string' && !p.enum ? '/memeval/project' : constantFor(p);
  if (t === 'array' && (p.minItems ?? 0) > 0) value = [constantFor(resolveSchema(p.items, root))];
  if (typeof value === 'string' && p.minLength && value.length < p.minLength) value = value.padEnd(p.minLength, '-');
  notes.push({ path: at, kind: 'constant', value });
  return value;
}

/** The roles of every property a tool's input holds, nested items included. */
function roles(schema: JsonSchema, root: JsonSchema, depth = 0): Set<Role> {
  const out = new Set<Role>();
  const s = resolveSchema(schema, root);
  for (const [prop, raw] of Object.entries(s.properties ?? {})) {
    out.add(propertyRole(prop));
    const p = resolveSchema(raw, root);
    if (depth < 3) {
      const inner = typeOf(p) === 'array' ? resolveSchema(p.items, root) : p;
      if (typeOf(inner) === 'object') for (const r of roles(inner, root, depth + 1)) out.add(r);
    }
  }
  return out;
}

/** The roles an op needs a tool to take, most important first. */
const NEEDS: Record<DraftOp, Role[][]> = {
  remember: [['content']],
  recall: [['query', 'content']],
  forget: [['id', 'name']],
  update: [['id', 'name'], ['content']],
};

export interface ToolChoice {
  tool: string;
  args: Record<string, unknown>;
  notes: ArgNote[];
  score: number;
}

export interface OpMapping {
  op: DraftOp;
  choice?: ToolChoice;
  /** other tools that also fit, best first, with their arguments filled: tried when the choice is refused */
  alternatives: ToolChoice[];
  /** why no tool was chosen */
  reason?: string;
}

/** How well a tool fits an op, by its name's words and its input's properties; undefined: not at all. */
export function scoreTool(name: string, schema: JsonSchema, op: DraftOp): number | undefined {
  const words = nameWords(name);
  const verb = words.findIndex((w) => OP_VERBS[op].includes(w));
  if (verb < 0) return undefined;
  const has = roles(schema, schema);
  for (const need of NEEDS[op]) if (!need.some((r) => has.has(r))) return undefined;
  let score = 10;
  if (words.some((w) => MEMORY_NOUNS.includes(w))) score += 2;
  // a recall is asked from a fresh server session: a search across sessions or scopes finds more
  if (op === 'recall' && words.includes('all')) score += 1;
  score -= 4 * words.filter((w) => SIDE_NOUNS.includes(w)).length;
  // the op's own verb word first ("remember", "search") over a generic one ("add", "find")
  score -= OP_VERBS[op].indexOf(words[verb]) / 10;
  // a tool that takes the memory itself (an id) over one that needs a pattern or a whole batch
  score -= (resolveSchema(schema, schema).required?.length ?? 0) / 100;
  return score;
}

/** A noun's singular, so "learnings" and "learning", "memories" and "memory" pair. */
function singular(word: string): string {
  if (word.endsWith('ies') && word.length > 4) return `${word.slice(0, -3)}y`;
  if (word.endsWith('s') && !word.endsWith('ss') && word.length > 3) return word.slice(0, -1);
  return word;
}

/** The words of a tool's name that are not any op's verb: what it acts on ("store_learning" → learning). */
export function toolNouns(name: string): Set<string> {
  const verbs = new Set(Object.values(OP_VERBS).flat());
  return new Set(
    nameWords(name)
      .filter((w) => !verbs.has(w))
      .map(singular),
  );
}

/**
 * How much more a tool fits forget, update or recall for acting on what the remember tool stores:
 * `delete_learning` beside `store_learning` over `delete_fact`, whose facts the remember never writes.
 */
const SAME_NOUN = 3;

/**
 * Map each op to the tool that fits it best, with arguments filled from its schema. `remember`
 * fixes the remember tool (the one the server accepted); the other ops prefer tools about the
 * same thing as it.
 */
export function mapOps(tools: Map<string, JsonSchema>, remember?: string): OpMapping[] {
  const taken = new Set<string>();
  let stored = new Set<string>();
  return DRAFT_OPS.map((op) => {
    const paired = (name: string) =>
      op !== 'remember' && [...toolNouns(name)].some((n) => stored.has(n)) ? SAME_NOUN : 0;
    const ranked = [...tools]
      .map(([name, schema]) => {
        const score = scoreTool(name, schema, op);
        return { name, schema, score: score === undefined ? undefined : score + paired(name) };
      })
      .filter((t): t is { name: string; schema: JsonSchema; score: number } => t.score !== undefined)
      .filter((t) => !taken.has(t.name))
      .sort(
        (a, b) =>
          Number(b.name === remember) - Number(a.name === remember) ||
          b.score - a.score ||
          a.name.length - b.name.length ||
          a.name.localeCompare(b.name),
      );
    const best = ranked[0];
    if (!best) {
      const verbs = OP_VERBS[op].join('/');
      const need = NEEDS[op].map((n) => n.join(' or ')).join(' and ');
      return {
        op,
        alternatives: [],
        reason: `no tool named like ${verbs} that takes ${need}`,
      };
    }
    taken.add(best.name);
    if (op === 'remember') stored = toolNouns(best.name);
    const [choice, ...alternatives] = ranked
      .slice(0, 4)
      .map((t) => ({ tool: t.name, ...fillArgs(t.schema, op), score: t.score }));
    return { op, choice, alternatives };
  });
}
