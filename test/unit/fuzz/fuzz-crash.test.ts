import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ROOT } from '../../helpers.ts';
import { loadScenarios, scenarioFiles } from '../../../src/scenario/loader.ts';
import { loadTarget } from '../../../src/targets/loader.ts';
import { buildVocabulary } from '../../../src/fuzz/vocabulary.ts';
import { Generator } from '../../../src/fuzz/generate.ts';
import { leafSteps, type FuzzCase } from '../../../src/fuzz/case.ts';
import { withoutSteps } from '../../../src/fuzz/shrink.ts';

const builtin = () => loadScenarios(scenarioFiles(join(ROOT, 'scenarios')));
const serverMemory = () => loadTarget('server-memory').decl;
const writes = new Set(['remember', 'update', 'forget']);

const cases = (decl = serverMemory(), n = 16): FuzzCase[] => {
  const g = new Generator(buildVocabulary(builtin(), decl), { seed: 'crash', recipes: ['crash'] });
  return Array.from({ length: n }, () => g.next());
};

test('crash: a kill after an acknowledged write or during one, then the acknowledged write expected to survive', () => {
  const all = cases();
  const points = new Set<string>();
  for (const c of all) {
    const leaves = leafSteps(c.steps);
    const i = leaves.findIndex((s) => s.op === 'kill');
    const kill = leaves[i];
    assert.ok(kill?.op === 'kill', JSON.stringify(c.steps));
    points.add(kill.point);
    // after-ack follows a write; during-write precedes the write in flight
    const by = leaves[kill.point === 'after-ack' ? i - 1 : i + 1];
    assert.ok(by && writes.has(by.op), `${kill.point} next to ${by?.op}`);
    const survives = c.expects.filter((e) => e.kind === 'survives');
    assert.equal(survives.length, 1);
    const s = survives[0] as { text: string; kill: number };
    assert.equal(s.kill, kill.n);
    // the surviving token was written (and answered) before the kill, never by the in-flight write
    const writer = leaves.findIndex((x) => x.op === 'remember' && x.content.includes(s.text));
    assert.ok(writer >= 0 && writer < i);
    if (kill.point === 'during-write') {
      const inFlight = leaves[i + 1] as { content: string };
      assert.ok(!c.expects.some((e) => 'text' in e && inFlight.content.includes(e.text)), 'nothing expected of it');
    }
    // a forget before the kill stays forgotten after it
    const forget = leaves.findIndex((x) => x.op === 'forget');
    if (forget >= 0) {
      assert.ok(forget < i);
      assert.ok(c.expects.some((e) => e.kind === 'not-live' && e.op === 'forget'));
    }
  }
  assert.deepEqual([...points].sort(), ['after-ack', 'during-write']);
  assert.ok(all.some((c) => c.ingredients.includes('forget')) && all.some((c) => c.ingredients.includes('keep')));
});

test('crash: a target without forget gets kills without a forget', () => {
  const { forget: _f, ...ops } = serverMemory().ops;
  for (const c of cases({ ...serverMemory(), ops }, 8)) {
    assert.ok(!leafSteps(c.steps).some((s) => s.op === 'forget'));
    assert.ok(leafSteps(c.steps).some((s) => s.op === 'kill'));
  }
});

test('crash: shrinking never drops the kill, nor the write it lands after or during', () => {
  for (const c of cases(serverMemory(), 8)) {
    const leaves = leafSteps(c.steps);
    const i = leaves.findIndex((s) => s.op === 'kill');
    const kill = leaves[i] as { n: number; point: string };
    const pinnedWrite = leaves[kill.point === 'after-ack' ? i - 1 : i + 1];
    const shrunk = withoutSteps(c, new Set(leaves.map((s) => s.n)));
    const kept = leafSteps(shrunk.steps).map((s) => s.n);
    assert.ok(kept.includes(kill.n), 'the kill stays');
    assert.ok(kept.includes(pinnedWrite.n), 'the write it is placed by stays');
    assert.ok(withoutSteps(c, new Set([kill.n])).steps.some((s) => s.op === 'kill'));
  }
});
