import { test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { ProviderServer } from '../../../src/model/provider/server.js';
import { cosine } from '../../../src/model/provider/embeddings.js';
import type { ProviderConfig } from '../../../src/model/provider/types.js';

const A = 'We picked Postgres for the accounts service';
const config: ProviderConfig = {
  similarity: [
    { a: A, b: 'zebra quasar lantern', cosine: 0.95 },
    { a: 'zebra quasar lantern', b: 'violet harbor', cosine: 0.9 },
    { a: A, b: 'opposite idea', cosine: -0.5 },
  ],
  rules: [
    {
      name: 'noop-when-similar',
      contains: ['Memory Consolidation Manager', '(similarity: 0.95)'],
      answer: '{"action":"NOOP"}',
    },
    { contains: ['Knowledge Extractor'], answer: '{"facts":[]}' },
  ],
  default: 'ADD',
  dimensions: 64,
};

async function withServer(fn: (base: string, s: ProviderServer) => Promise<void>): Promise<void> {
  const s = new ProviderServer(config);
  const base = await s.start();
  try {
    await fn(base, s);
  } finally {
    await s.stop();
  }
}

const post = async (url: string, body: unknown): Promise<any> => {
  const r = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  assert.equal(r.status, 200, `${url}: ${r.status}`);
  return r.headers.get('content-type')?.includes('ndjson')
    ? (await r.text())
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
    : r.json();
};

test('OpenAI embeddings through the SDK (base64 by default): declared cosine exact, unrelated near 0, same text same vector', async () => {
  await withServer(async (base, s) => {
    const client = new OpenAI({ baseURL: `${base}/v1`, apiKey: 'k' });
    const r = await client.embeddings.create({
      model: 'text-embedding-3-small',
      input: [
        `Database choice ${A}.`,
        'zebra quasar lantern',
        'violet harbor comet',
        `Database choice ${A}.`,
        'completely unrelated words',
        'an opposite idea',
      ],
      dimensions: 256,
    });
    const v = r.data.map((d) => d.embedding);
    assert.equal(v.length, 6);
    assert.equal(v[0]!.length, 256);
    for (const x of v) assert.ok(Math.abs(Math.hypot(...x) - 1) < 1e-5, 'unit length');
    assert.ok(Math.abs(cosine(v[0]!, v[1]!) - 0.95) <= 0.01, `A~B ${cosine(v[0]!, v[1]!)}`);
    assert.ok(Math.abs(cosine(v[1]!, v[2]!) - 0.9) <= 0.01, `B~C ${cosine(v[1]!, v[2]!)}`);
    // chain: A~C is the product of the links, up to noise of order 1/sqrt(256)
    assert.ok(Math.abs(cosine(v[0]!, v[2]!) - 0.855) < 0.15, `A~C ${cosine(v[0]!, v[2]!)}`);
    assert.ok(Math.abs(cosine(v[0]!, v[5]!) + 0.5) <= 0.01, `negative cosine ${cosine(v[0]!, v[5]!)}`);
    assert.equal(cosine(v[0]!, v[3]!), 1);
    assert.ok(Math.abs(cosine(v[0]!, v[4]!)) < 0.25, `unrelated ${cosine(v[0]!, v[4]!)}`);
    assert.equal(s.calls.length, 1);
    assert.deepEqual(s.calls[0]!.matched, [
      'similarity[0] a',
      'similarity[0] b',
      'similarity[1] b',
      'similarity[0] a',
      'none',
      'similarity[2] b',
    ]);
    assert.equal(s.calls[0]!.dimensions, 256);
  });
});

test('float embeddings, default dimension, Ollama /api/embed and legacy /api/embeddings agree with OpenAI', async () => {
  await withServer(async (base) => {
    const f = await post(`${base}/v1/embeddings`, {
      model: 'm',
      input: 'zebra quasar lantern',
      encoding_format: 'float',
    });
    assert.equal(f.data[0].embedding.length, 64);
    const o = await post(`${base}/api/embed`, { model: 'm', input: [A, 'zebra quasar lantern'] });
    assert.equal(o.embeddings.length, 2);
    assert.ok(Math.abs(cosine(o.embeddings[0], o.embeddings[1]) - 0.95) <= 0.01);
    const legacy = await post(`${base}/api/embeddings`, { model: 'm', prompt: 'zebra quasar lantern' });
    assert.ok(cosine(legacy.embedding, f.data[0].embedding) > 0.99999);
  });
});

test('chat answers: first matching rule wins, default otherwise; OpenAI (plain and SSE), Anthropic, Ollama chat and generate', async () => {
  await withServer(async (base, s) => {
    const client = new OpenAI({ baseURL: `${base}/v1`, apiKey: 'k' });
    const sys = 'You are a Memory Consolidation Manager.';
    const plain = await client.chat.completions.create({
      model: 'stub-chat',
      messages: [
        { role: 'system', content: sys },
        { role: 'user', content: 'ID: 1 (similarity: 0.95) Postgres' },
      ],
    });
    assert.equal(plain.choices[0]!.message.content, '{"action":"NOOP"}');
    const stream = await client.chat.completions.create({
      model: 'stub-chat',
      stream: true,
      messages: [{ role: 'user', content: 'hello' }],
    });
    let streamed = '';
    for await (const ch of stream) streamed += ch.choices[0]?.delta?.content ?? '';
    assert.equal(streamed, 'ADD');
    const anthropic = new Anthropic({ baseURL: base, apiKey: 'k' });
    const m = await anthropic.messages.create({
      model: 'claude-x',
      max_tokens: 10,
      system: 'You are a Software Engineering Knowledge Extractor',
      messages: [{ role: 'user', content: 'x' }],
    });
    assert.equal(m.content[0]!.type === 'text' ? m.content[0]!.text : '', '{"facts":[]}');
    const oc = await post(`${base}/api/chat`, {
      model: 'llama3',
      stream: false,
      messages: [{ role: 'user', content: 'hi' }],
    });
    assert.equal(oc.message.content, 'ADD');
    const og = await post(`${base}/api/generate`, { model: 'llama3', prompt: 'Knowledge Extractor please' });
    assert.equal(og.map((x: any) => x.response).join(''), '{"facts":[]}');
    assert.equal(og.at(-1).done, true);
    assert.deepEqual(
      s.calls.map((c) => c.matched[0]),
      ['noop-when-similar', 'default', 'rule 1', 'default', 'rule 1'],
    );
    assert.deepEqual(s.calls[0]!.inputs, [`system: ${sys}`, 'user: ID: 1 (similarity: 0.95) Postgres']);
    assert.equal(s.calls[2]!.protocol, 'anthropic-messages');
  });
});

test('model lists; unknown routes are 404 and recorded', async () => {
  await withServer(async (base, s) => {
    const client = new OpenAI({ baseURL: `${base}/v1`, apiKey: 'k' });
    const models = await client.models.list();
    assert.ok(models.data.some((m) => m.id === 'text-embedding-3-small'));
    const tags = await (await fetch(`${base}/api/tags`)).json();
    assert.ok(tags.models.length > 0);
    const r = await fetch(`${base}/v2/nothing`, { method: 'POST', body: '{}' });
    assert.equal(r.status, 404);
    assert.deepEqual(
      s.calls.map((c) => [c.kind, c.status]),
      [
        ['models', 200],
        ['models', 200],
        ['unknown', 404],
      ],
    );
  });
});

test('same inputs, same vectors across server instances (seeded from the text, not the process)', async () => {
  const one = async () => {
    const s = new ProviderServer(config);
    const base = await s.start();
    try {
      return (await post(`${base}/v1/embeddings`, { model: 'm', input: ['violet harbor', 'plain text'] })).data.map(
        (d: any) => d.embedding,
      );
    } finally {
      await s.stop();
    }
  };
  assert.deepEqual(await one(), await one());
});

test('a rule can capture from the prompt ($1 in the answer) and hold its answer to the next wall-clock second', async () => {
  const s = new ProviderServer({
    similarity: [],
    rules: [
      {
        name: 'delete-listed',
        contains: ['choose ADD'],
        capture: 'ID: (\\d+) \\(similarity: 0\\.9',
        hold: 'next-second',
        answer: '{"operation":"DELETE","targetMemoryId":"$1"}',
      },
    ],
    default: 'ADD',
    dimensions: 8,
  });
  const base = await s.start();
  try {
    const ask = async (content: string) =>
      (await post(`${base}/v1/chat/completions`, { model: 'm', messages: [{ role: 'user', content }] })).choices[0]
        .message.content;
    const sentAt = Date.now();
    assert.equal(
      await ask('choose ADD ... 1. ID: 1795361759000 (similarity: 0.93)'),
      '{"operation":"DELETE","targetMemoryId":"1795361759000"}',
    );
    assert.ok(Math.floor(Date.now() / 1000) > Math.floor(sentAt / 1000), 'answered in a later second');
    assert.ok(s.calls[0]!.held_ms > 0);
    // the regex is part of the condition: no match, no rule
    assert.equal(await ask('choose ADD ... 1. ID: 17 (similarity: 0.42)'), 'ADD');
    assert.equal(s.calls[1]!.held_ms, 0);
  } finally {
    await s.stop();
  }
});
