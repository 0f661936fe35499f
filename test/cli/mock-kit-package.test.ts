/**
 * The mock kit from another project: a project with memeval in its node_modules imports
 * `memeval` by name (package.json `exports`, the built dist/) and points an OpenAI client's
 * base URL at the provider.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { ROOT, tempDir, timeLimit } from '../helpers.ts';
import { staleBuiltFile } from '../setup/built-cli.ts';

const OTHER_PROJECT = `
import OpenAI from 'openai';
import { startMockProvider, cosine } from 'memeval';
const provider = await startMockProvider({
  similarity: [{ a: 'User prefers tabs', b: 'indents with tabs', cosine: 0.8 }],
  rules: [{ contains: ['summarise'], answer: 'a summary' }],
});
try {
  const client = new OpenAI({ baseURL: provider.url + '/v1', apiKey: 'unused' });
  const e = await client.embeddings.create({ model: 'm', input: ['User prefers tabs', 'She indents with tabs'] });
  const c = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'summarise this' }] });
  console.log(JSON.stringify({ cosine: cosine(e.data[0].embedding, e.data[1].embedding), answer: c.choices[0].message.content, calls: provider.calls.length }));
} finally {
  await provider.stop();
}
`;

// another project's test of its retry path: the fault must be met, and one never met must not pass quietly
const RETRY_PROJECT = `
import OpenAI from 'openai';
import { startMockProvider } from 'memeval';
const provider = await startMockProvider({
  faults: [{ name: 'rate limited once', on: 'embeddings', fault: 'http-429', times: 1, retryAfter: 0 }],
});
const client = new OpenAI({ baseURL: provider.url + '/v1', apiKey: 'unused', maxRetries: 0 });
let first;
try {
  await client.embeddings.create({ model: 'm', input: 'x' });
  first = 200;
} catch (e) {
  first = e.status;
}
const second = (await client.embeddings.create({ model: 'm', input: 'x' })).data[0].embedding.length;
const faults = provider.calls.map((c) => c.fault);
await provider.stop();
const unmet = await startMockProvider({ faults: [{ name: 'never met', on: 'chat', fault: 'timeout' }] });
let stopped = 'resolved';
try {
  await unmet.stop();
} catch (e) {
  stopped = e.name + ': ' + e.message;
}
console.log(JSON.stringify({ first, second, faults, stopped }));
`;

/** A project with memeval (and openai) in its node_modules, running one script. */
async function otherProject(dir: string, script: string) {
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(ROOT, join(dir, 'node_modules', 'memeval'));
  symlinkSync(join(ROOT, 'node_modules', 'openai'), join(dir, 'node_modules', 'openai'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'other', type: 'module' }));
  writeFileSync(join(dir, 'uses-kit.mjs'), script);
  return execa(process.execPath, ['uses-kit.mjs'], { cwd: dir, reject: false, timeout: timeLimit(60_000) });
}

test(
  'another project imports the mock provider from the memeval package',
  { timeout: timeLimit(60_000) },
  async (t) => {
    const stale = staleBuiltFile(ROOT);
    if (stale) return t.skip(`dist/ is not current (${stale}): npm run build`);
    const r = await otherProject(tempDir(t), OTHER_PROJECT);
    assert.equal(r.exitCode, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { cosine: number; answer: string; calls: number };
    assert.ok(Math.abs(out.cosine - 0.8) < 1e-6, String(out.cosine));
    assert.equal(out.answer, 'a summary');
    assert.equal(out.calls, 2);
  },
);

test(
  "another project's retry test meets the kit's fault, and a fault it never met rejects the kit's stop",
  { timeout: timeLimit(60_000) },
  async (t) => {
    const stale = staleBuiltFile(ROOT);
    if (stale) return t.skip(`dist/ is not current (${stale}): npm run build`);
    const r = await otherProject(tempDir(t), RETRY_PROJECT);
    assert.equal(r.exitCode, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { first: number; second: number; faults: (string | null)[]; stopped: string };
    assert.equal(out.first, 429, 'the first request met the fault');
    assert.equal(out.second, 384, 'the retry was answered');
    assert.deepEqual(out.faults, ['http-429', null]);
    assert.match(out.stopped, /^UnservedFaultsError: .*fault rule\(s\) never served: never met/);
  },
);
