import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pluginModuleProblem } from '../../../src/scenario/plugin-check.ts';

test('a plug-in module must exist, be JavaScript, load and export judge (or a default function)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'memeval-plugin-check-'));
  const f = (name: string, src: string) => (writeFileSync(join(dir, name), src), join(dir, name));
  assert.match(pluginModuleProblem(join(dir, 'nope.mjs'))!, /does not exist/);
  assert.match(pluginModuleProblem(f('a.ts', 'export function judge() {}'))!, /not a JavaScript module/);
  assert.match(
    pluginModuleProblem(f('b.mjs', 'export const judge = 1; export const y = 2;'))!,
    /exports no function `judge` \(exports: judge, y\)/,
  );
  assert.match(
    pluginModuleProblem(f('c.mjs', 'throw new TypeError("bad at load")'))!,
    /does not load: TypeError: bad at load/,
  );
  assert.equal(pluginModuleProblem(f('d.mjs', 'console.log("{}"); export function judge() {}')), undefined);
  assert.equal(pluginModuleProblem(f('e.mjs', 'export default () => ({})')), undefined);
});
