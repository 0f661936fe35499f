import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { memeval, tempDir } from '../helpers.ts';
import { handCase } from '../fuzz-helpers.ts';
import { FlagStore } from '../../src/fuzz/flags.ts';

test('memeval flags --stats: "no outcomes recorded" until a confirm or a dismissal with a reason, then precision per check and target', async (t) => {
  const db = join(tempDir(t), 'flags.db');
  const store = new FlagStore(db);
  const [a, b] = ['a', 'b'].map((x) => handCase(`r-${x}`, (s) => s.remember(x)));
  store.record(a, 'tgt', [{ check: 'broken-claim', claim: 'forget', reason: 'kept', calls: [] }]);
  store.record(b, 'tgt', [{ check: 'broken-claim', claim: 'forget', reason: 'kept', calls: [] }]);
  store.close();

  const none = await memeval(['flags', '--stats', '--flags', db]);
  assert.equal(none.exitCode, 0, String(none.stderr));
  assert.match(String(none.stdout), /^no outcomes recorded \(2 flag\(s\)\)/);
  assert.doesNotMatch(String(none.stdout), /%/, 'no made-up rate');

  const bad = await memeval(['flags', 'dismiss', a.fingerprint, '--reason', 'false-positiv', '--flags', db]);
  assert.equal(bad.exitCode, 3);
  assert.match(String(bad.stderr), /did you mean "false-positive"/);
  assert.equal((await memeval(['flags', 'confirm', a.fingerprint, '--flags', db])).exitCode, 0);
  const dis = await memeval(['flags', 'dismiss', b.fingerprint, '--reason', 'expected', '--flags', db]);
  assert.equal(dis.exitCode, 0, String(dis.stderr));
  assert.match(String(dis.stdout), /dismissed .*: expected/);

  const st = await memeval(['flags', '--stats', '--flags', db]);
  assert.equal(st.exitCode, 0, String(st.stderr));
  assert.match(
    String(st.stdout),
    /broken-claim:forget\s+1\/2 \(50%\)\s+confirmed 1, duplicate 0, false-positive 0, expected 1/,
  );
  assert.match(String(st.stdout), /by target:\n\s+tgt\s+1\/2 \(50%\)/);
  const json = JSON.parse(String((await memeval(['flags', '--stats', '--json', '--flags', db])).stdout));
  assert.equal(json.decided, 2);
  const list = await memeval(['flags', '--flags', db]);
  assert.match(String(list.stdout), /\[confirmed\]/);
});
