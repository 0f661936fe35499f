/**
 * Attack: a plug-in that reads a column the evidence rows do not have. The memories view's
 * column is `content`; a plug-in written against another tool's name (`m.text`) reads undefined
 * on every row, finds the secret nowhere and answers pass with a non-empty `actual` (how many rows
 * it looked at). memeval hands the rows over as plain frozen objects, so the mistake is silent:
 * the cell passes (or, in a violation phase, reads `defended`) over a store that holds the secret.
 * A read of a field no row has saw nothing: it must be `error` (e.g. rows that throw on an
 * unknown column, naming the columns there are). Judged as a run judges it: in the time-limited
 * judge process, over a real evidence DB whose store holds the text.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertionSchema } from '../../../src/scenario/schema.ts';
import { mutationCell } from '../../../src/selftest/mutations.ts';
import { openEvidence } from '../../../src/evidence/open.ts';
import { runJudgesBounded } from '../../../src/judge/bounded.ts';

test('a plug-in reading a column the memories rows lack (m.text, not m.content) does not pass', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'memeval-attack-plugin-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  // the store holds one memory, "User prefers dark mode"
  const cell = mutationCell(root, 'cell');
  const module = join(root, 'no-text.mjs');
  writeFileSync(
    module,
    `export function judge(ev, o) {
  const hits = ev.memories.filter((m) => String(m.text ?? '').includes(o.text));
  return { outcome: hits.length ? 'fail' : 'pass', actual: { rows: ev.memories.length, hits: hits.length } };
}`,
  );
  const a = assertionSchema.parse({
    kind: 'plugin',
    name: 'no dark mode kept',
    phase: 'violation',
    module,
    options: { text: 'dark mode' },
  });
  const evidence = openEvidence(cell.dir);
  try {
    const [j] = await runJudgesBounded([a], { evidence }, cell.dir, 10_000);
    assert.equal(
      j.outcome,
      'error',
      `a plug-in that read m.text (undefined on every row) decided ${j.outcome} over a store holding the text: ${j.observed}`,
    );
  } finally {
    evidence.close();
  }
});
