import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadTarget } from '../../../src/targets/loader.js';
import { targetSchema } from '../../../src/targets/schema.js';
import { scenarioSchema } from '../../../src/scenario/schema.js';
import { replayDriver } from '../../../src/drive/replay.js';
import { unsupportedReason } from '../../../src/cell/unsupported.js';
import { scenario } from '../../helpers.js';

// a server whose only search is a cosine threshold, on the seeded stand-in model
const thresholdSearch = targetSchema.parse({
  ...loadTarget('memories-sh').decl,
  fixture: {
    embedding_model: {
      dir: '{{home}}/.cache/m/Xenova/e5',
      recall_unsupported: 'its search keeps only hits over 0.7, a cosine set for the real model',
    },
  },
});

const withJudges = (assertions: unknown[]) => scenarioSchema.parse(scenario('s', { assertions }));

const recall = { kind: 'recall', name: 'r', phase: 'both', query: 'dark', contains: 'dark mode' };
const count = { kind: 'count', name: 'c', phase: 'both', contains: 'dark mode', op: 'eq', value: 1 };
const reason = (assertions: unknown[]) => {
  const s = withJudges(assertions);
  return unsupportedReason(s, thresholdSearch, replayDriver(s, 'well-behaved'));
};

test('a cell that judges a recall is unsupported on a target whose recall runs on the stand-in model', () => {
  assert.match(reason([count, recall]) ?? '', /stand-in embedding model: its search keeps only hits over 0\.7/);
  const rank = { kind: 'rank', name: 'k', phase: 'both', query: 'dark', max_results: 3 };
  assert.match(
    reason([{ kind: 'jury', name: 'j', phase: 'both', rule: 'any', judges: [count, rank] }]) ?? '',
    /stand-in/,
    'a rank inside a jury reads a recall too',
  );
});

test('cells that judge no recall still run, and targets that declare nothing are unaffected', () => {
  assert.equal(reason([count]), undefined);
  const s = withJudges([count, recall]);
  const plain = loadTarget('memories-sh').decl;
  assert.equal(unsupportedReason(s, plain, replayDriver(s, 'well-behaved')), undefined);
});
