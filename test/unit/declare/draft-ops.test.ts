// The heuristics `targets new` maps ops to tools with: names, argument roles, filled arguments.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  fillArgs,
  mapOps,
  nameWords,
  propertyRole,
  scoreTool,
  toolNouns,
  type JsonSchema,
} from '../../../src/declare/draft/ops.ts';

const obj = (properties: Record<string, JsonSchema>, required: string[] = []): JsonSchema => ({
  type: 'object',
  properties,
  required,
});
const str: JsonSchema = { type: 'string' };
const strs: JsonSchema = { type: 'array', items: str };

test('nameWords splits snake, kebab and camel case', () => {
  assert.deepEqual(nameWords('context_batch_delete'), ['context', 'batch', 'delete']);
  assert.deepEqual(nameWords('memory_storeKnowledge'), ['memory', 'store', 'knowledge']);
  assert.deepEqual(nameWords('search-nodes'), ['search', 'nodes']);
});

test('propertyRole reads the last word; an id of something else is not the memory id', () => {
  assert.equal(propertyRole('content'), 'content');
  assert.equal(propertyRole('observations'), 'content');
  assert.equal(propertyRole('value'), 'content');
  assert.equal(propertyRole('q'), 'query');
  assert.equal(propertyRole('memoryId'), 'id');
  assert.equal(propertyRole('id'), 'id');
  assert.equal(propertyRole('sessionId'), 'other');
  assert.equal(propertyRole('entityName'), 'name');
  assert.equal(propertyRole('keys'), 'name');
  assert.equal(propertyRole('entityType'), 'category');
  assert.equal(propertyRole('limit'), 'other');
});

test('fillArgs: op values by role, constants only for required unknowns, one item for an array of objects', () => {
  const save = obj(
    {
      text: str,
      kind: { type: 'string', enum: ['decision', 'note'] },
      tags: strs,
      priority: { type: 'integer', minimum: 1 },
      private: { type: 'boolean' },
    },
    ['text', 'kind', 'priority'],
  );
  assert.deepEqual(fillArgs(save, 'remember').args, { text: '{{content}}', kind: 'note', priority: 1 });
  const graph = obj({ entities: { type: 'array', items: obj({ name: str, entityType: str, observations: strs }) } }, [
    'entities',
  ]);
  assert.deepEqual(fillArgs(graph, 'remember').args, {
    entities: [{ name: '{{key}}', entityType: '{{category}}', observations: ['{{content}}'] }],
  });
  assert.deepEqual(fillArgs(obj({ query: str, limit: { type: 'number' } }, ['query']), 'recall').args, {
    query: '{{query}}',
  });
  // a numeric id takes the captured id as a number
  assert.deepEqual(fillArgs(obj({ id: { type: 'number' } }, ['id']), 'forget').args, { id: '{{memory.id|number}}' });
  assert.deepEqual(fillArgs(obj({ entityNames: strs }, ['entityNames']), 'forget').args, {
    entityNames: ['{{memory.key}}'],
  });
  // a $ref into $defs and a nullable anyOf resolve to the schema they name
  const reffed: JsonSchema = {
    ...obj({ item: { $ref: '#/$defs/Item' } }, ['item']),
    $defs: { Item: obj({ content: { anyOf: [{ type: 'null' }, str] } }, ['content']) },
  };
  assert.deepEqual(fillArgs(reffed, 'remember').args, { item: { content: '{{content}}' } });
});

test('scoreTool: a tool fits only with the op verb in its name and the values the op needs in its input', () => {
  assert.equal(scoreTool('list_memories', obj({}), 'recall'), undefined, 'no recall verb');
  assert.equal(scoreTool('search', obj({ limit: { type: 'number' } }), 'recall'), undefined, 'no query');
  assert.equal(scoreTool('delete_all', obj({ confirm: { type: 'boolean' } }), 'forget'), undefined, 'no id or name');
  const direct = scoreTool('delete_memory', obj({ id: str }, ['id']), 'forget')!;
  const side = scoreTool('delete_relations', obj({ relations: strs, id: str }), 'forget')!;
  assert.ok(direct > side, 'a side structure (relations, batch, tags) scores lower');
});

test('mapOps: each op its best tool, no tool twice, with ranked alternatives and a reason when none fits', () => {
  const tools = new Map<string, JsonSchema>([
    ['create_entities', obj({ entities: { type: 'array', items: obj({ name: str, observations: strs }) } })],
    ['add_observations', obj({ observations: { type: 'array', items: obj({ entityName: str, contents: strs }) } })],
    ['create_relations', obj({ relations: { type: 'array', items: obj({ from: str, to: str }) } })],
    ['search_nodes', obj({ query: str }, ['query'])],
    ['delete_entities', obj({ entityNames: strs }, ['entityNames'])],
    ['read_graph', obj({})],
  ]);
  const m = Object.fromEntries(mapOps(tools).map((x) => [x.op, x]));
  assert.equal(m.remember.choice?.tool, 'add_observations');
  assert.deepEqual(
    m.remember.alternatives.map((a) => a.tool),
    ['create_entities'],
    'create_relations takes no content and is no alternative',
  );
  assert.equal(m.recall.choice?.tool, 'search_nodes');
  assert.equal(m.forget.choice?.tool, 'delete_entities');
  assert.equal(m.update.choice, undefined);
  assert.match(m.update.reason!, /no tool named like update\/edit/);
});

test('mapOps: a recall across sessions is preferred, as a fresh server session asks it', () => {
  const tools = new Map<string, JsonSchema>([
    ['context_search', obj({ query: str }, ['query'])],
    ['context_search_all', obj({ query: str }, ['query'])],
  ]);
  assert.equal(mapOps(tools).find((x) => x.op === 'recall')?.choice?.tool, 'context_search_all');
});

test('fillArgs: a schema whose anyOf only adds required names keeps its properties; a required path is absolute', () => {
  // claude-memory-layer's mem-perspective-observation-create: matched nothing while anyOf replaced the schema
  const create: JsonSchema = {
    ...obj({ projectPath: str, content: str, observedActorId: str, targetActorId: str, actor: str }, [
      'projectPath',
      'content',
      'actor',
    ]),
    anyOf: [{ required: ['targetActorId'] }, { required: ['observedActorId'] }],
  };
  assert.ok(scoreTool('mem-perspective-observation-create', create, 'remember') !== undefined);
  assert.deepEqual(fillArgs(create, 'remember').args, {
    projectPath: '/memeval/project',
    content: '{{content}}',
    targetActorId: 'memeval',
    actor: 'memeval',
  });
});

test('mapOps: forget and update act on what the remember stores (delete_learning beside store_learning, not delete_fact)', () => {
  // agent-orchestrator-mcp's names: "fact" is a memory noun, "learning" is not, so delete_fact won alone
  const tools = new Map<string, JsonSchema>([
    ['store_learning', obj({ agentId: str, title: str, content: str }, ['agentId', 'title', 'content'])],
    ['store_project_fact', obj({ key: str, value: str }, ['key', 'value'])],
    ['search_learnings', obj({ query: str }, ['query'])],
    ['delete_fact', obj({ id: str }, ['id'])],
    ['delete_learning', obj({ id: str }, ['id'])],
    ['update_fact', obj({ id: str, value: str }, ['id', 'value'])],
    ['update_learning', obj({ id: str, content: str }, ['id', 'content'])],
  ]);
  const m = Object.fromEntries(mapOps(tools).map((x) => [x.op, x]));
  assert.equal(m.remember.choice?.tool, 'store_learning');
  assert.equal(m.forget.choice?.tool, 'delete_learning');
  assert.deepEqual(
    m.forget.alternatives.map((a) => a.tool),
    ['delete_fact'],
  );
  assert.equal(m.update.choice?.tool, 'update_learning');
  // the remember the server accepted fixes the pairing: facts stored, facts deleted
  const facts = Object.fromEntries(mapOps(tools, 'store_project_fact').map((x) => [x.op, x]));
  assert.equal(facts.remember.choice?.tool, 'store_project_fact');
  assert.equal(facts.forget.choice?.tool, 'delete_fact');
  assert.equal(facts.update.choice?.tool, 'update_fact');
});

test('toolNouns: the words of a name that are no op verb, singular', () => {
  assert.deepEqual([...toolNouns('store_learning')], ['learning']);
  assert.deepEqual([...toolNouns('get_learnings')], ['get', 'learning']);
  assert.deepEqual([...toolNouns('delete_memories')], ['memory']);
  assert.deepEqual([...toolNouns('create_entities')], ['entity']);
});
