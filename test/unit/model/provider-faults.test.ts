// The provider's faults over real HTTP: what each one puts on the wire, which request gets it
// (kind, contains, skip, times), and what the call log records for the evidence.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import OpenAI from 'openai';
import { ProviderServer } from '../../../src/model/provider/server.js';
import { FaultPlan, unservedFaults, wrongDimensions } from '../../../src/model/provider/faults.js';
import type { FaultRule, ProviderConfig } from '../../../src/model/provider/types.js';
import { phaseFaults } from '../../../src/model/provider/cell.js';
import { scenarioSchema } from '../../../src/scenario/schema.js';
import { scenario } from '../../helpers.js';

const rule = (r: Partial<FaultRule> & Pick<FaultRule, 'fault'>): FaultRule => ({
  name: r.fault,
  on: 'embeddings',
  contains: [],
  skip: 0,
  retryAfter: 1,
  optional: false,
  ...r,
});

async function withServer(faults: FaultRule[], fn: (base: string, s: ProviderServer) => Promise<void>) {
  const config: ProviderConfig = { similarity: [], rules: [], default: 'ADD', dimensions: 16, faults };
  const s = new ProviderServer(config);
  const base = await s.start();
  try {
    await fn(base, s);
  } finally {
    await s.stop();
  }
}

const post = (url: string, body: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

test('FaultPlan: the first 2 embedding requests, then none; chat requests are not counted', () => {
  const plan = new FaultPlan([rule({ fault: 'http-429', times: 2 })]);
  assert.equal(plan.pick('chat', ['x'])?.name, undefined);
  assert.equal(plan.pick('embeddings', ['a'])?.name, 'http-429');
  assert.equal(plan.pick('embeddings', ['b'])?.name, 'http-429');
  assert.equal(plan.pick('embeddings', ['c']), undefined);
  assert.equal(plan.pick('models', []), undefined);
});

test('FaultPlan: contains (case-insensitive, every string), skip, and each rule counts on its own', () => {
  const plan = new FaultPlan([
    rule({ name: 'third zebra', fault: 'http-500', contains: ['Zebra'], skip: 2, times: 1 }),
    rule({ name: 'every quasar', fault: 'timeout', contains: ['quasar', 'lantern'], on: 'any' }),
  ]);
  const got = [
    ['zebra one'],
    ['a quasar'],
    ['ZEBRA two', 'quasar lantern'],
    ['zebra three'],
    ['zebra four'],
    ['quasar and lantern'],
  ].map((inputs) => plan.pick('embeddings', inputs)?.name ?? null);
  // the third zebra request also holds quasar+lantern: the first rule is counted regardless, the
  // second serves it; the first rule then serves its window's request (the third zebra it saw)
  assert.deepEqual(got, [null, null, 'every quasar', 'third zebra', null, 'every quasar']);
  // an embedding-only fault never hits a chat request, even on: any
  const chat = new FaultPlan([rule({ fault: 'empty-embedding', on: 'any' })]);
  assert.equal(chat.pick('chat', ['x']), undefined);
});

test('wrongDimensions: half the size asked, or the rule size, and never the size asked', () => {
  assert.equal(wrongDimensions(rule({ fault: 'wrong-dimension' }), 256), 128);
  assert.equal(wrongDimensions(rule({ fault: 'wrong-dimension', dimensions: 7 }), 256), 7);
  assert.equal(wrongDimensions(rule({ fault: 'wrong-dimension', dimensions: 256 }), 256), 257);
  assert.equal(wrongDimensions(rule({ fault: 'wrong-dimension' }), 1), 2);
});

test('unservedFaults: every required fault must have been served; optional ones only when all are optional', () => {
  const a = rule({ name: 'a', fault: 'http-429' });
  const b = rule({ name: 'b', fault: 'http-500', optional: true });
  const c = rule({ name: 'c', fault: 'timeout', optional: true });
  assert.deepEqual(unservedFaults([a, b], []), ['a']);
  assert.deepEqual(unservedFaults([a, b], [{ fault_rule: 'a' }]), []);
  assert.deepEqual(unservedFaults([b, c], []), ['b', 'c']);
  assert.deepEqual(unservedFaults([b, c], [{ fault_rule: 'c' }]), []);
  assert.deepEqual(unservedFaults([], []), []);
});

test('stage: a phase fault is neither served nor counted on a setup request, and served in setup it does not count', () => {
  const plan = new FaultPlan([rule({ name: 'once', fault: 'http-429', times: 1, stage: 'phase' })]);
  assert.equal(plan.pick('embeddings', ['x'], 'setup'), undefined, 'not served in setup');
  assert.equal(plan.pick('embeddings', ['x'], 'step')?.name, 'once', 'its one time is still there for the phase');
  assert.equal(plan.pick('embeddings', ['x'], 'step'), undefined);
  const agent = new FaultPlan([rule({ name: 'once', fault: 'http-429', times: 1, stage: 'phase' })]);
  assert.equal(agent.pick('embeddings', ['x'], 'agent')?.name, 'once', "an agent's run is the phase too");
  const judge = new FaultPlan([rule({ name: 'p', fault: 'http-500', stage: 'phase' })]);
  assert.equal(judge.pick('embeddings', ['x'], 'judge'), undefined, 'nor the recall probe after the phase');
  const setup = new FaultPlan([rule({ name: 's', fault: 'http-500', stage: 'setup' })]);
  assert.equal(setup.pick('embeddings', ['x'], 'step'), undefined);
  assert.equal(setup.pick('embeddings', ['x'], 'setup')?.name, 's');
  // no stage on the rule (the mock kit) or "any": every request, a stageless one too
  assert.equal(new FaultPlan([rule({ fault: 'http-500' })]).pick('embeddings', ['x'], null)?.name, 'http-500');

  const phase = rule({ name: 'p', fault: 'http-429', stage: 'phase' });
  assert.deepEqual(unservedFaults([phase], [{ fault_rule: 'p', stage: 'setup' }]), ['p']);
  assert.deepEqual(unservedFaults([phase], [{ fault_rule: 'p', stage: 'step' }]), []);
  // evidence from before the stage column: where it was served is unknown, so not in the phase
  assert.deepEqual(unservedFaults([phase], [{ fault_rule: 'p', stage: null }]), ['p']);
  assert.deepEqual(unservedFaults([phase], [{ fault_rule: 'p' }]), ['p']);
  assert.deepEqual(unservedFaults([{ ...phase, stage: 'any' }], [{ fault_rule: 'p', stage: null }]), []);
});

test('the provider stamps each request with the stage it arrived in', async () => {
  await withServer([], async (base, s) => {
    s.stage = 'setup';
    await post(`${base}/v1/embeddings`, { model: 'm', input: 'a' });
    s.stage = 'step';
    await post(`${base}/v1/embeddings`, { model: 'm', input: 'b' });
    assert.deepEqual(
      s.calls.map((c) => c.stage),
      ['setup', 'step'],
    );
  });
});

test('http-429 and http-500 carry Retry-After and an error body in the protocol shape; the call records the fault', async () => {
  await withServer(
    [
      rule({ name: 'limited', fault: 'http-429', times: 1, retryAfter: 3 }),
      rule({ name: 'down', fault: 'http-500', on: 'chat' }),
    ],
    async (base, s) => {
      const r1 = await post(`${base}/v1/embeddings`, { model: 'm', input: 'hello' });
      assert.equal(r1.status, 429);
      assert.equal(r1.headers.get('retry-after'), '3');
      assert.equal(((await r1.json()) as { error: { type: string } }).error.type, 'rate_limit_error');
      // the next one is answered: the rule served its one time
      const r2 = await post(`${base}/v1/embeddings`, { model: 'm', input: 'hello' });
      assert.equal(r2.status, 200);
      assert.equal(((await r2.json()) as { data: { embedding: number[] }[] }).data[0]!.embedding.length, 16);
      const r3 = await post(`${base}/api/chat`, { model: 'm', messages: [{ role: 'user', content: 'hi' }] });
      assert.equal(r3.status, 500);
      assert.equal(r3.headers.get('retry-after'), '1');
      assert.match(((await r3.json()) as { error: string }).error, /memeval provider fault/);
      const r4 = await post(`${base}/v1/messages`, { model: 'm', messages: [{ role: 'user', content: 'hi' }] });
      assert.equal(((await r4.json()) as { type: string }).type, 'error');
      assert.deepEqual(
        s.calls.map((c) => [c.kind, c.status, c.fault, c.fault_rule]),
        [
          ['embeddings', 429, 'http-429', 'limited'],
          ['embeddings', 200, null, null],
          ['chat', 500, 'http-500', 'down'],
          ['chat', 500, 'http-500', 'down'],
        ],
      );
      assert.equal(s.calls[0]!.answer, 'HTTP 429, Retry-After: 3');
      assert.deepEqual(s.calls[2]!.inputs, ['user: hi']);
    },
  );
});

test('the OpenAI SDK sees a 429 it retries after Retry-After, then the vector', async () => {
  await withServer([rule({ fault: 'http-429', times: 1, retryAfter: 0 })], async (base, s) => {
    const client = new OpenAI({ baseURL: `${base}/v1`, apiKey: 'k', maxRetries: 2 });
    const r = await client.embeddings.create({ model: 'm', input: 'hello', encoding_format: 'float' });
    assert.equal(r.data[0]!.embedding.length, 16);
    assert.deepEqual(
      s.calls.map((c) => c.status),
      [429, 200],
    );
  });
});

test('malformed-json: a 200 JSON body cut off; the SDK cannot parse it', async () => {
  await withServer([rule({ fault: 'malformed-json' })], async (base, s) => {
    const r = await post(`${base}/v1/embeddings`, { model: 'm', input: 'hello' });
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type') ?? '', /json/);
    await assert.rejects(r.json() as Promise<unknown>, SyntaxError);
    assert.equal(s.calls[0]!.fault, 'malformed-json');
    assert.equal(s.calls[0]!.status, 200);
  });
});

test('wrong-dimension and empty-embedding: vectors of another size, or empty, in every wire shape', async () => {
  await withServer(
    [
      rule({ name: 'short', fault: 'wrong-dimension', contains: ['short'] }),
      rule({ name: 'empty', fault: 'empty-embedding', contains: ['empty'] }),
    ],
    async (base, s) => {
      const openai = (await (
        await post(`${base}/v1/embeddings`, { model: 'm', input: ['short a', 'short b'], dimensions: 10 })
      ).json()) as { data: { embedding: number[] }[] };
      assert.deepEqual(
        openai.data.map((d) => d.embedding.length),
        [5, 5],
      );
      const b64 = (await (
        await post(`${base}/v1/embeddings`, { model: 'm', input: 'short', encoding_format: 'base64' })
      ).json()) as { data: { embedding: string }[] };
      assert.equal(Buffer.from(b64.data[0]!.embedding, 'base64').length, 8 * 4);
      const ollama = (await (await post(`${base}/api/embed`, { model: 'm', input: 'empty one' })).json()) as {
        embeddings: number[][];
      };
      assert.deepEqual(ollama.embeddings, [[]]);
      const legacy = (await (await post(`${base}/api/embeddings`, { model: 'm', prompt: 'empty two' })).json()) as {
        embedding: number[];
      };
      assert.deepEqual(legacy.embedding, []);
      assert.deepEqual(
        s.calls.map((c) => [c.fault, c.status, c.dimensions, c.answer]),
        [
          ['wrong-dimension', 200, 10, '5-d vectors, 10-d asked'],
          ['wrong-dimension', 200, 16, '8-d vectors, 16-d asked'],
          ['empty-embedding', 200, 16, 'an empty vector per input'],
          ['empty-embedding', 200, 16, 'an empty vector per input'],
        ],
      );
    },
  );
});

test('timeout: no answer until the client gives up; the call records status 0 and how long it was held', async () => {
  await withServer([rule({ fault: 'timeout', on: 'chat' })], async (base, s) => {
    const gaveUp = await new Promise<string>((resolve) => {
      const u = new URL(`${base}/v1/chat/completions`);
      const req = request(
        {
          host: u.hostname,
          port: u.port,
          path: u.pathname,
          method: 'POST',
          headers: { 'content-type': 'application/json' },
        },
        () => resolve('answered'),
      );
      req.setTimeout(150, () => {
        req.destroy();
        resolve('timed out');
      });
      req.on('error', () => undefined);
      req.end(JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }));
    });
    assert.equal(gaveUp, 'timed out');
    // the handler finishes the record once the connection is gone
    for (let i = 0; i < 200 && !s.calls[0]?.answer?.includes('closed'); i++)
      await new Promise((r) => setTimeout(r, 10));
    const c = s.calls[0]!;
    assert.equal(c.fault, 'timeout');
    assert.equal(c.status, 0);
    assert.match(c.answer ?? '', /no answer; the connection closed after \d+ ms/);
    assert.ok(c.ms >= 100, `held ${c.ms} ms`);
  });
});

test('a timeout still open when the provider stops does not keep it from stopping', async () => {
  const s = new ProviderServer({
    similarity: [],
    rules: [],
    default: '',
    dimensions: 4,
    faults: [rule({ fault: 'timeout' })],
  });
  const base = await s.start();
  const pending = post(`${base}/v1/embeddings`, { input: 'x' }).catch((e: Error) => e);
  for (let i = 0; i < 200 && !s.calls.length; i++) await new Promise((r) => setTimeout(r, 10));
  await s.stop();
  assert.ok((await pending) instanceof Error, 'the client sees the connection close');
  assert.equal(s.calls[0]!.status, 0);
});

test('phaseFaults: the rules of the phase with refs resolved, names by their place in the whole list, Retry-After 1 by default', () => {
  const sc = scenarioSchema.parse(
    scenario('f', {
      setup: { memories: [{ ref: 'db', content: 'The ledger lives in Postgres' }] },
      provider: {
        faults: [
          { on: 'embeddings', fault: 'http-429', contains: '$ref:db', times: 2 },
          { name: 'only in the violation', on: 'chat', fault: 'timeout', phase: 'violation', optional: true },
          { on: 'any', fault: 'http-500', retry_after: 7, phase: 'well-behaved', stage: 'setup' },
        ],
      },
    }),
  );
  const wb = phaseFaults(sc, 'well-behaved');
  assert.deepEqual(
    wb.map((f) => [f.name, f.contains, f.retryAfter, f.times, f.optional, f.stage]),
    [
      ['fault 0', ['The ledger lives in Postgres'], 1, 2, false, 'phase'],
      ['fault 2', [], 7, undefined, false, 'setup'],
    ],
  );
  assert.deepEqual(
    phaseFaults(sc, 'violation').map((f) => f.name),
    ['fault 0', 'only in the violation'],
  );
});
