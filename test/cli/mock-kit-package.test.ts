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

test(
  'another project imports the mock provider from the memeval package',
  { timeout: timeLimit(60_000) },
  async (t) => {
    const stale = staleBuiltFile(ROOT);
    if (stale) return t.skip(`dist/ is not current (${stale}): npm run build`);
    const dir = tempDir(t);
    mkdirSync(join(dir, 'node_modules'));
    symlinkSync(ROOT, join(dir, 'node_modules', 'memeval'));
    symlinkSync(join(ROOT, 'node_modules', 'openai'), join(dir, 'node_modules', 'openai'));
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'other', type: 'module' }));
    writeFileSync(join(dir, 'uses-kit.mjs'), OTHER_PROJECT);
    const r = await execa(process.execPath, ['uses-kit.mjs'], { cwd: dir, reject: false, timeout: timeLimit(60_000) });
    assert.equal(r.exitCode, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { cosine: number; answer: string; calls: number };
    assert.ok(Math.abs(out.cosine - 0.8) < 1e-6, String(out.cosine));
    assert.equal(out.answer, 'a summary');
    assert.equal(out.calls, 2);
  },
);
