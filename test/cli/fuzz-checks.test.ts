import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { checkCase, handCase, judgeCase, localDecl } from '../fuzz-helpers.ts';
import { tempDir } from '../helpers.ts';
import { runCampaign } from '../../src/fuzz/campaign.ts';
import { FlagStore } from '../../src/fuzz/flags.ts';
import { resolveTargetBin } from '../../src/targets/resolve-bin.ts';
import { loadScenarios, scenarioFiles } from '../../src/scenario/loader.ts';
import { ROOT } from '../helpers.ts';
import type { Finding } from '../../src/fuzz/checks.ts';
import { targetSchema } from '../../src/targets/schema.ts';

const only = (fs: Finding[], check: string) => fs.filter((f) => f.check === check);
const threeWrites = handCase('t', (b) => {
  b.remember('User prefers tabs');
  b.remember('User prefers tabs');
  b.remember('The build uses pnpm');
});

test('a well-behaved server raises no finding on the same case', async (t) => {
  const fs = await checkCase(t, localDecl('calm', 'dedupe', { claims: ['exact-dedupe', 'recall'] }), threeWrites);
  assert.deepEqual(fs, []);
});

test('crash: a server that exits mid-case is flagged with its exit code and the calls before it', async (t) => {
  const fs = only(await checkCase(t, localDecl('crasher', 'crash-on-2nd'), threeWrites), 'crash');
  assert.equal(fs.length, 1);
  assert.match(fs[0].reason, /exit code 3/);
  assert.ok(fs[0].calls.length >= 1, 'shows the calls');
});

test('protocol: text on stdout that is not JSON-RPC is flagged', async (t) => {
  const fs = only(await checkCase(t, localDecl('chatty', 'garbage'), threeWrites), 'protocol');
  assert.equal(fs.length, 1);
  assert.match(fs[0].reason, /JSON/);
});

test('protocol: an answer to an id never asked is flagged', async (t) => {
  const fs = only(await checkCase(t, localDecl('wrongid', 'wrong-id'), threeWrites), 'protocol');
  assert.equal(fs.length, 1);
  assert.match(fs[0].reason, /unknown message ID/i);
});

test('tool-error: a refusal of arguments the tool schema accepts is flagged, with the call', async (t) => {
  const fs = only(await checkCase(t, localDecl('refuser', 'refuse-save'), threeWrites), 'tool-error');
  assert.equal(fs.length, 1);
  assert.match(fs[0].reason, /database is locked/);
  assert.equal(fs[0].calls[0].tool, 'save');
});

test('tool-error: a refusal of arguments the tool schema rejects is not flagged', async (t) => {
  const c = handCase('t', (b) => b.remember(''));
  const fs = await checkCase(t, localDecl('strict', 'min-length'), c);
  assert.deepEqual(only(fs, 'tool-error'), [], 'minLength: 1 in the schema makes "" invalid input');
});

test('hang: a call without an answer within the per-call timeout is flagged', async (t) => {
  const fs = only(await checkCase(t, localDecl('sleeper', 'hang', { call_timeout_ms: 1000 }), threeWrites), 'hang');
  assert.equal(fs.length, 1);
  assert.match(fs[0].reason, /save: .*timed out/i);
});

test('a server that exits before the handshake is a crash, one that never answers it a hang (by error code, not message text)', async (t) => {
  const crash = only(await checkCase(t, localDecl('dies', 'exit-at-start'), threeWrites), 'crash');
  assert.equal(crash.length, 1);
  assert.match(crash[0].reason, /server did not start/);
  const mute = localDecl('mute', 'mute-at-start');
  mute.server.startup_timeout_ms = 1500;
  const fs = await checkCase(t, mute, threeWrites);
  assert.deepEqual(
    fs.map((f) => f.check),
    ['hang'],
    'memeval stopping the server after its timeout is no crash',
  );
});

test('store-integrity: a JSONL line that does not parse is flagged', async (t) => {
  const fs = only(await checkCase(t, localDecl('torn', 'torn'), threeWrites), 'store-integrity');
  assert.equal(fs.length, 1);
  assert.match(fs[0].reason, /store\.jsonl:1: not JSON/);
});

test('store-integrity: a SQLite store failing PRAGMA integrity_check is flagged', async (t) => {
  const fs = only(
    await checkCase(t, localDecl('rot', 'corrupt-sqlite', { sqlite: true }), threeWrites),
    'store-integrity',
  );
  assert.equal(fs.length, 1);
  assert.match(fs[0].reason, /never used/);
});

test('broken claim: exact-dedupe claimed and two copies stored', async (t) => {
  const c = handCase('t', (b) => {
    b.remember('User prefers tabs');
    b.remember('User prefers tabs');
    b.expect({ kind: 'at-most-one', claim: 'exact-dedupe', texts: ['User prefers tabs'] });
  });
  const fs = only(await checkCase(t, localDecl('dupes', '', { claims: ['exact-dedupe'] }), c), 'broken-claim');
  assert.equal(fs.length, 1);
  assert.equal(fs[0].claim, 'exact-dedupe');
  assert.match(fs[0].reason, /2 live memories/);
  assert.equal(fs[0].calls.length, 2, 'both writes are shown');
  // the same store without the claim: nothing to hold it to
  assert.deepEqual(only(await checkCase(t, localDecl('dupes2', ''), c), 'broken-claim'), []);
});

test('broken claim: secret-redaction claimed and a secret in the subject field is stored', async (t) => {
  const c = handCase('t', (b) => {
    b.remember('Deploys go through CI', { subject: 'hunter2hunter2' });
    b.expect({ kind: 'absent', claim: 'secret-redaction', text: 'hunter2hunter2' });
  });
  const fs = only(await checkCase(t, localDecl('leaky', '', { claims: ['secret-redaction'] }), c), 'broken-claim');
  assert.equal(fs.length, 1);
  assert.match(fs[0].reason, /raw bytes of store\.jsonl/);
});

test('broken claim: forget claimed, forgotten text still live and recalled', async (t) => {
  const c = handCase('t', (b) => {
    const ref = b.remember('Token mmvforgetme1');
    b.forget(ref);
    b.expect({ kind: 'not-recalled', claim: 'forget', text: 'mmvforgetme1', step: b.recall('mmvforgetme1') });
    b.expect({ kind: 'not-live', claim: 'forget', text: 'mmvforgetme1' });
  });
  // itemised, so a result holding the token is told from an echo of the query
  const itemised = (d: ReturnType<typeof localDecl>) =>
    targetSchema.parse({ ...d, recall_results: { regex: '^#\\d+ .+$', empty: { text: 'no results' } } });
  const fs = only(
    await checkCase(t, itemised(localDecl('clingy', 'forget-nothing', { claims: ['forget'] })), c),
    'broken-claim',
  );
  assert.equal(fs.length, 2);
  assert.ok(fs.some((f) => /recall after forgetting still returns/.test(f.reason)));
  assert.ok(fs.some((f) => /still a live memory/.test(f.reason)));
  assert.deepEqual(
    only(await checkCase(t, itemised(localDecl('forgetful', '', { claims: ['forget'] })), c), 'broken-claim'),
    [],
    'a real delete passes',
  );
});

test('broken claim: forget claimed, the forgotten text kept in a file beside the store (where `absent` looks)', async (t) => {
  const c = handCase('t', (b) => {
    const ref = b.remember('Token mmvforgetme2');
    b.forget(ref);
    b.expect({ kind: 'not-live', claim: 'forget', text: 'mmvforgetme2' });
    b.expect({ kind: 'absent', claim: 'forget', text: 'mmvforgetme2' });
  });
  const fs = only(await checkCase(t, localDecl('auditor', 'audit-file', { claims: ['forget'] }), c), 'broken-claim');
  assert.equal(fs.length, 1, JSON.stringify(fs));
  assert.match(fs[0].reason, /claims forget, but "mmvforgetme2" is in fixture file .*store\.jsonl\.audit\.log/);
});

test('a no-results answer that echoes the query is no hit: forget holds, and recall of a lost token misses', async (t) => {
  const decl = targetSchema.parse({
    ...localDecl('echoer', 'echo-empty', { claims: ['forget', 'recall'] }),
    recall_results: { regex: '^#\\d+ .+$', empty: { text: 'No results found for: "{{query}}"' } },
  });
  const c = handCase('t', (b) => {
    const ref = b.remember('Token mmvforgetme3');
    b.forget(ref);
    b.expect({ kind: 'not-recalled', claim: 'forget', text: 'mmvforgetme3', step: b.recall('mmvforgetme3') });
    b.expect({ kind: 'recalled', claim: 'recall', text: 'mmvforgetme3', step: b.recall('mmvforgetme3') });
  });
  const fs = await checkCase(t, decl, c);
  assert.deepEqual(
    fs.map((f) => f.check),
    ['recall-miss'],
    'the echo is not the forgotten memory; it is not the stored one either',
  );
});

test('without recall_results, an echo of the query is never a hit: recall and forget are unjudged, not passed or flagged', async (t) => {
  // stores nothing, and answers every search with "No results found for: <query>"
  const recall = handCase('t', (b) => {
    b.remember('Fact with mmvechotoken1');
    b.expect({ kind: 'recalled', claim: 'recall', text: 'mmvechotoken1', step: b.recall('mmvechotoken1') });
  });
  const r = await judgeCase(t, localDecl('echo-amnesiac', 'echo-empty,store-nothing', { claims: ['recall'] }), recall);
  assert.deepEqual(only(r.findings, 'recall-miss'), []);
  assert.match(
    r.unjudged.join('\n'),
    /^recall: recall step 1: "mmvechotoken1" is part of the query, so an echo of the query cannot be told from a result/m,
  );
  // a real delete, then the echo: no broken forget either
  const forget = handCase('t', (b) => {
    b.forget(b.remember('Token mmvechotoken2'));
    b.expect({ kind: 'not-recalled', claim: 'forget', text: 'mmvechotoken2', step: b.recall('mmvechotoken2') });
  });
  const f = await judgeCase(t, localDecl('echo-forgetter', 'echo-empty', { claims: ['forget'] }), forget);
  assert.deepEqual(f.findings, []);
  assert.match(f.unjudged.join('\n'), /^forget: recall step 2: .*an echo of the query cannot be told/m);
});

test('a refused recall, or a JSON answer saying the recall failed, is neither a hit nor a clean miss: the check is unjudged', async (t) => {
  const c = handCase('t', (b) => {
    b.remember('Fact with mmvkepttoken1');
    b.expect({ kind: 'recalled', claim: 'recall', text: 'mmvkepttoken1', step: b.recall('mmvkepttoken1') });
    b.forget(b.remember('Token mmvgonetoken1'));
    b.expect({ kind: 'not-recalled', claim: 'forget', text: 'mmvgonetoken1', step: b.recall('mmvgonetoken1') });
  });
  const refused = await judgeCase(t, localDecl('no-search', 'refuse-search', { claims: ['recall', 'forget'] }), c);
  assert.deepEqual(
    refused.findings.map((f) => f.check),
    ['tool-error'],
    'the refusal itself is reported, no claim is',
  );
  assert.match(
    refused.unjudged.join('\n'),
    /^recall: recall step 1: recall "mmvkepttoken1" cannot be read as results: the target refused it/m,
  );
  assert.match(
    refused.unjudged.join('\n'),
    /^forget: recall step 4: recall "mmvgonetoken1" cannot be read as results: the target refused it/m,
  );

  const decl = targetSchema.parse({
    ...localDecl('json-failer', 'json-fail-search', { claims: ['recall', 'forget'] }),
    recall_results: { json: 'results' },
  });
  const failed = await judgeCase(t, decl, c);
  assert.deepEqual(failed.findings, [], '{"success":false,"results":[]} is no miss of the stored token');
  for (const claim of ['recall', 'forget'])
    assert.match(
      failed.unjudged.join('\n'),
      new RegExp(`^${claim}: recall step \\d: .*its answer says the recall failed \\("success": false\\)`, 'm'),
    );
});

test('recall-miss and forget are not held against a write or a forget the target refused', async (t) => {
  const c = handCase('t', (b) => {
    b.remember('Fact with mmvrefusedwrite');
    b.expect({ kind: 'recalled', claim: 'recall', text: 'mmvrefusedwrite', step: b.recall('mmvrefusedwrite') });
  });
  const fs = await checkCase(t, localDecl('refusing', 'refuse-save', { claims: ['recall'] }), c);
  assert.deepEqual(only(fs, 'recall-miss'), [], 'the token was never stored');
  assert.equal(only(fs, 'tool-error').length, 1, 'the refusal itself is reported');
  const f = handCase('t', (b) => {
    const ref = b.remember('Token mmvkeepme22');
    b.forget(ref);
    b.expect({ kind: 'not-live', claim: 'forget', text: 'mmvkeepme22' });
  });
  const fs2 = await checkCase(t, localDecl('nodelete', 'refuse-delete', { claims: ['forget'] }), f);
  assert.deepEqual(only(fs2, 'broken-claim'), []);
  assert.equal(only(fs2, 'tool-error').length, 1);
});

test("tool-error: a refusal of an update or forget whose id memeval had to guess is not the target's fault", async (t) => {
  const c = handCase('t', (b) => b.forget(b.remember('Token mmvguessedid1')));
  const decl = localDecl('nocapture', 'refuse-delete');
  decl.ops.remember![0].capture_id = 'Stored as (\\d+)'; // never matches "Saved #1"
  assert.deepEqual(only(await checkCase(t, decl, c), 'tool-error'), []);
  assert.equal(
    only(await checkCase(t, localDecl('capture', 'refuse-delete'), c), 'tool-error').length,
    1,
    'with a captured id the refusal is flagged',
  );
});

test('recall-miss: recall claimed and a token just stored is not found', async (t) => {
  const c = handCase('t', (b) => {
    b.remember('Fact with mmvtokenabc12');
    b.restart();
    b.expect({ kind: 'recalled', claim: 'recall', text: 'mmvtokenabc12', step: b.recall('mmvtokenabc12') });
  });
  const fs = only(await checkCase(t, localDecl('amnesiac', 'search-empty', { claims: ['recall'] }), c), 'recall-miss');
  assert.equal(fs.length, 1);
  assert.ok(
    fs[0].calls.some((x) => x.tool === 'save') && fs[0].calls.some((x) => x.tool === 'search'),
    'shows the write and the search',
  );
  assert.deepEqual(only(await checkCase(t, localDecl('finder', '', { claims: ['recall'] }), c), 'recall-miss'), []);
  assert.deepEqual(
    only(await checkCase(t, localDecl('amnesiac2', 'search-empty'), c), 'recall-miss'),
    [],
    'not claimed: not held to it',
  );
});

test('network: an attempt the guard refused is flagged with the host', async (t) => {
  const fs = only(await checkCase(t, localDecl('phoner', 'phone-home'), threeWrites), 'network');
  assert.equal(fs.length, 1);
  assert.match(fs[0].reason, /example\.com/);
});

test('latency: an outlier is flagged only when a rerun of the case is slow too', async (t) => {
  const dir = tempDir(t);
  const scenarios = loadScenarios(scenarioFiles(join(ROOT, 'scenarios')));
  const settings = { latencyFactor: 1.5, latencyMinSamples: 5, latencyFloorMs: 500 };
  const campaign = async (mode: string, env: Record<string, string> = {}) => {
    const decl = localDecl(`slow-${mode}`, mode);
    Object.assign(decl.server.env, env);
    const flags = new FlagStore(join(dir, `${mode}.db`));
    try {
      return await runCampaign({
        decl,
        bin: resolveTargetBin(decl),
        scenarios,
        seed: 'lat',
        budget: 2,
        recipes: ['burst-recall'],
        flags,
        history: false,
        outDir: join(dir, mode),
        keep: false,
        settings,
      });
    } finally {
      flags.close();
    }
  };
  // the 5th call of every server process takes 1.5 s: the rerun repeats it
  const always = await campaign('slow-5th');
  assert.equal(always.by_check.latency, 1, JSON.stringify(always));
  // one call in the whole run (the 5th of the second case) is slow: the rerun is not
  const once = await campaign('slow-once', { FUZZ_COUNT: join(dir, 'count'), FUZZ_SLOW_AT: '205' });
  assert.equal(once.by_check.latency, 0, JSON.stringify(once));
  assert.equal(once.latency_unconfirmed, 1);
});

const restartCase = handCase('t', (b) => {
  b.remember('User prefers tabs');
  b.restart();
  b.remember('The build uses pnpm');
});

test('crash-at-exit: a server that exits 1 when its stdin closes is flagged, at a restart and at the end', async (t) => {
  const fs = await checkCase(t, localDecl('exit1', 'exit-1-at-stop'), restartCase);
  const f = only(fs, 'crash-at-exit');
  assert.equal(f.length, 1, JSON.stringify(fs));
  assert.match(f[0].reason, /server session 1 exited with code 1 when its stdin closed/);
  assert.match(f[0].reason, /server session 2 exited with code 1 when its stdin closed/);
  assert.deepEqual(only(fs, 'crash'), [], 'a stop memeval asked for is not a crash mid-case');
});

test('crash-at-exit: a server killed by a signal when asked to stop is flagged', async (t) => {
  const f = only(await checkCase(t, localDecl('aborter', 'abort-at-stop'), threeWrites), 'crash-at-exit');
  assert.equal(f.length, 1);
  // abort() ends by SIGABRT; as the init of a PID namespace it cannot raise that, stalls, and ends by a fault once signalled
  assert.match(
    f[0].reason,
    /server session 1 was killed by SIG(ABRT|SEGV|ILL|TRAP) (when its stdin closed|on SIGTERM) \(asked to stop\)/,
  );
});

test('crash-at-exit: a store there before the stop and empty after it is flagged', async (t) => {
  const f = only(await checkCase(t, localDecl('loser', 'lose-store-at-stop'), threeWrites), 'crash-at-exit');
  assert.equal(f.length, 1);
  assert.match(
    f[0].reason,
    /the store data\/store\.jsonl held \d+ bytes before server session 1 stopped and is empty after/,
  );
});

test('crash-at-exit: a server deaf to its stdin closing that exits 1 on the SIGTERM after is flagged', async (t) => {
  const f = only(await checkCase(t, localDecl('termfail', 'exit-1-on-sigterm'), threeWrites), 'crash-at-exit');
  assert.equal(f.length, 1);
  assert.match(f[0].reason, /server session 1 exited with code 1 on SIGTERM \(asked to stop\)/);
});
