/**
 * The mock kit as another project uses it: everything comes from memeval's package entry
 * (src/index.ts; `import { startMockProvider } from 'memeval'` once installed). A memory server
 * under test is pointed at `url` (OpenAI: `${url}/v1`); its embeddings have exactly the cosines
 * the test declares, its LLM calls get the scripted answers, and every request is recorded.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  cosine,
  Embedder,
  mockProviderConfig,
  ProviderServer,
  startMockProvider,
  UnservedFaultsError,
  type ProviderConfig,
} from '../../../src/index.js';

const post = async (url: string, body: unknown) => {
  const r = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  assert.equal(r.status, 200);
  return (await r.json()) as any;
};

test('the mock provider: declared cosines, scripted answers, every call recorded', async (t) => {
  const provider = await startMockProvider({
    similarity: [{ a: 'User prefers tabs', b: 'indents with tabs', cosine: 0.92 }],
    rules: [{ name: 'dedupe', contains: ['already stored'], answer: '{"action":"NOOP"}' }],
    default: '{"action":"ADD"}',
    dimensions: 64,
  });
  t.after(() => provider.stop());

  const e = await post(`${provider.url}/v1/embeddings`, {
    model: 'any',
    input: ['User prefers tabs', 'The user indents with tabs in Go', 'The build runs on Buildkite'],
  });
  const [anchor, near, other] = e.data.map((d: { embedding: number[] }) => d.embedding);
  assert.equal(anchor.length, 64);
  assert.ok(Math.abs(cosine(anchor, near) - 0.92) < 1e-9, 'the declared cosine, exactly');
  assert.ok(Math.abs(cosine(anchor, other)) < 0.5, 'an undeclared text is unrelated');

  const chat = (text: string) =>
    post(`${provider.url}/v1/chat/completions`, { model: 'any', messages: [{ role: 'user', content: text }] });
  assert.equal(
    (await chat('Is this already stored? User prefers tabs')).choices[0].message.content,
    '{"action":"NOOP"}',
  );
  assert.equal((await chat('A new fact')).choices[0].message.content, '{"action":"ADD"}');

  assert.deepEqual(
    provider.calls.map((c) => [c.kind, c.matched.join(',')]),
    [
      ['embeddings', 'similarity[0] a,similarity[0] b,none'],
      ['chat', 'dedupe'],
      ['chat', 'default'],
    ],
  );
});

test('the same vectors without a server, and the server class for full control', async (t) => {
  const embedder = new Embedder([{ a: 'anchor text', b: 'follower', cosine: -0.3 }]);
  const a = embedder.embed('anchor text', 32).vector;
  assert.ok(Math.abs(cosine(a, embedder.embed('a follower', 32).vector) + 0.3) < 1e-9);
  assert.deepEqual(embedder.embed('anchor text', 32).vector, a, 'the same text, the same vector');
  const server = new ProviderServer(mockProviderConfig({ default: 'ok' }));
  const url = await server.start();
  t.after(() => server.stop());
  const r = await post(`${url}/api/chat`, { model: 'm', stream: false, messages: [{ role: 'user', content: 'hi' }] });
  assert.equal(r.message.content, 'ok');
});

test('the kit passes every field of the provider config through: a fault rule is served and recorded', async () => {
  const provider = await startMockProvider({
    dimensions: 8,
    faults: [{ name: 'down', on: 'embeddings', fault: 'http-500', times: 1, retryAfter: 2 }],
  });
  const r = await fetch(`${provider.url}/v1/embeddings`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'm', input: 'hello' }),
  });
  assert.equal(r.status, 500);
  assert.equal(r.headers.get('retry-after'), '2');
  assert.deepEqual(
    provider.calls.map((c) => [c.status, c.fault, c.fault_rule]),
    [[500, 'http-500', 'down']],
  );
  assert.deepEqual(provider.unservedFaults(), []);
  await provider.stop();
});

test('the kit: a required fault never served makes stop() reject with its name; an optional one does not', async () => {
  const provider = await startMockProvider({
    faults: [
      { name: 'never met', on: 'chat', contains: ['nothing asks this'], fault: 'timeout' },
      { name: 'may be met', on: 'chat', fault: 'http-500', optional: true, contains: ['nor this'] },
    ],
  });
  assert.deepEqual(provider.unservedFaults(), ['never met']);
  await assert.rejects(provider.stop(), (e: Error) => {
    assert.ok(e instanceof UnservedFaultsError);
    assert.deepEqual(e.faults, ['never met']);
    assert.match(e.message, /fault rule\(s\) never served: never met; .*how it handles the fault was not tested/);
    return true;
  });
});

test('mockProviderConfig: every config field is kept, defaults fill the rest, and fault rules get theirs', () => {
  const full: Required<ProviderConfig> = {
    similarity: [{ a: 'x', b: 'y', cosine: 0.5 }],
    rules: [{ contains: ['q'], answer: 'a' }],
    faults: [
      {
        name: 'f',
        on: 'chat',
        contains: ['c'],
        skip: 1,
        times: 2,
        fault: 'http-429',
        retryAfter: 3,
        optional: true,
        stage: 'setup',
      },
    ],
    default: 'd',
    dimensions: 12,
  };
  assert.deepEqual(mockProviderConfig(full), full);
  assert.deepEqual(mockProviderConfig({ faults: [{ fault: 'timeout' }], default: undefined }), {
    similarity: [],
    rules: [],
    faults: [{ name: 'fault 0', on: 'any', contains: [], skip: 0, retryAfter: 1, optional: false, fault: 'timeout' }],
    default: '',
    dimensions: 384,
  });
});
