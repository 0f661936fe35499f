// Provider faults through whole runs (in process; rejudge and validate through the CLI): the built-in fault scenarios over a small server that
// embeds through memeval's provider and, per MODE, keeps, retries, refuses, drops or never asks
// (test/servers/provider-embed.mjs); the evidence records every fault served, a fault never
// served is an error, not a pass, and a fault rule that makes no sense is exit 3 before anything runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { memeval } from '../helpers.js';
import { reportFromStdout, runInline, scenario, tempDir, type Decl } from '../kit.ts';

const SERVER = join(import.meta.dirname, '..', 'servers', 'provider-embed.mjs');
const MODES = ['keep', 'retry', 'refuse', 'drop', 'offline'] as const;

function targets(): Decl[] {
  return MODES.map((mode) => ({
    name: `embed-${mode}`,
    description: `provider-embed test server (${mode})`,
    server: {
      command: '{{node}}',
      args: [SERVER],
      env: { MODE: mode, STORE: '{{data}}/store.jsonl', PROVIDER: '{{provider}}' },
      startup_timeout_ms: 20000,
      call_timeout_ms: 20000,
    },
    store: { format: 'jsonl', path: '{{data}}/store.jsonl' },
    views: {
      memories:
        "SELECT json_extract(json, '$.id') AS id, json_extract(json, '$.text') AS content, 'note' AS category, NULL AS source, 0 AS is_deleted FROM store.records",
    },
    provider: { dimensions: 32 },
    ops: {
      remember: [{ tool: 'remember', args: { text: '{{content}}' }, capture_id: 'stored (mem-\\d+)' }],
      recall: [{ tool: 'recall', args: { query: '{{query}}' } }],
    },
    recall_results: { json: 'results' },
  }));
}

test('fault scenarios over keep / retry / refuse / drop / offline servers: verdicts, evidence, and no pass without a served fault', async (t) => {
  const r = await runInline(t, {
    targets: targets(),
    config: {
      scenarioIds: [
        'provider-outage-write-not-lost',
        'provider-rate-limit-retried',
        'provider-bad-embedding-contained',
      ],
      workers: 4,
    },
  });
  const { report } = r;
  const runDir = r.runDir!;
  const verdicts = Object.fromEntries(
    report.results.map((c) => [`${c.scenario} ${c.target.replace('embed-', '')} ${c.phase}`, c.verdict]),
  );
  t.diagnostic(JSON.stringify(verdicts, null, 1));
  assert.equal(r.exitCode, 1, 'failing cells fail the run');
  assert.deepEqual(verdicts, {
    // keeps the memory without a vector: found by its words
    'provider-outage-write-not-lost keep well-behaved': 'pass',
    'provider-outage-write-not-lost keep violation': 'detected',
    'provider-outage-write-not-lost retry well-behaved': 'pass',
    'provider-outage-write-not-lost retry violation': 'detected',
    // an honest refusal still keeps nothing
    'provider-outage-write-not-lost refuse well-behaved': 'fail',
    'provider-outage-write-not-lost refuse violation': 'detected',
    // acknowledged, nothing stored
    'provider-outage-write-not-lost drop well-behaved': 'fail',
    'provider-outage-write-not-lost drop violation': 'detected',
    // never asked the provider: every assertion holds, and yet nothing about the fault was tested
    'provider-outage-write-not-lost offline well-behaved': 'error',
    'provider-outage-write-not-lost offline violation': 'error',
    // without a retry the memory has no vector: a query by meaning misses it
    'provider-rate-limit-retried keep well-behaved': 'fail',
    'provider-rate-limit-retried keep violation': 'detected',
    'provider-rate-limit-retried retry well-behaved': 'pass',
    'provider-rate-limit-retried retry violation': 'detected',
    'provider-rate-limit-retried refuse well-behaved': 'fail',
    'provider-rate-limit-retried refuse violation': 'detected',
    'provider-rate-limit-retried drop well-behaved': 'fail',
    'provider-rate-limit-retried drop violation': 'detected',
    // without a fault served, not even a failing check is a finding about faults
    'provider-rate-limit-retried offline well-behaved': 'error',
    'provider-rate-limit-retried offline violation': 'error',
    // a vector of the wrong size is refused and the memory kept; an empty one for the next memory leaves it unfound by meaning
    'provider-bad-embedding-contained keep well-behaved': 'pass',
    'provider-bad-embedding-contained keep violation': 'detected',
    'provider-bad-embedding-contained retry well-behaved': 'pass',
    'provider-bad-embedding-contained retry violation': 'detected',
    'provider-bad-embedding-contained refuse well-behaved': 'fail',
    'provider-bad-embedding-contained refuse violation': 'detected',
    'provider-bad-embedding-contained drop well-behaved': 'fail',
    'provider-bad-embedding-contained drop violation': 'detected',
    'provider-bad-embedding-contained offline well-behaved': 'error',
    'provider-bad-embedding-contained offline violation': 'error',
  });
  const cell = (s: string, mode: string, phase: string) =>
    report.results.find((c) => c.scenario === s && c.target === `embed-${mode}` && c.phase === phase)!;
  assert.match(
    cell('provider-outage-write-not-lost', 'offline', 'well-behaved').reason,
    /provider fault\(s\) never served: embeddings down for the memory; .*assertions alone said pass/,
  );
  // only the required fault is named: the optional ones (the search, the LLM) need not be served
  assert.doesNotMatch(cell('provider-outage-write-not-lost', 'offline', 'well-behaved').reason, /LLM down|the search/);
  assert.deepEqual(
    (cell('provider-outage-write-not-lost', 'offline', 'violation').verdict_input as { unservedFaults?: string[] })
      .unservedFaults,
    ['embeddings down for the search'],
  );
  assert.match(
    cell('provider-outage-write-not-lost', 'drop', 'well-behaved').reason,
    /the memory is stored despite the outage/,
  );
  assert.match(cell('provider-outage-write-not-lost', 'refuse', 'well-behaved').reason, /refused by the target/);

  // the evidence holds what the server saw: the two 429s (Retry-After honoured), then the answer
  const rows = (s: string, mode: string, phase: string) => {
    const db = new Database(join(runDir, cell(s, mode, phase).cell_dir, 'evidence.db'), { readonly: true });
    try {
      return db
        .prepare(
          "SELECT kind, status, fault, fault_rule, answer FROM provider_calls WHERE instr(input_text, 'Osprey') > 0 OR instr(input_text, 'Kestrel') > 0 OR instr(input_text, 'Heron') > 0 OR instr(input_text, 'Finch') > 0 ORDER BY seq",
        )
        .all() as {
        kind: string;
        status: number;
        fault: string | null;
        fault_rule: string | null;
        answer: string | null;
      }[];
    } finally {
      db.close();
    }
  };
  const retried = rows('provider-rate-limit-retried', 'retry', 'well-behaved');
  assert.deepEqual(
    retried.map((c) => [c.status, c.fault, c.fault_rule]),
    [
      [429, 'http-429', 'rate limited twice'],
      [429, 'http-429', 'rate limited twice'],
      [200, null, null],
    ],
  );
  assert.equal(retried[0]!.answer, 'HTTP 429, Retry-After: 1');
  // the violation's rule, not the well-behaved one, is served in the violation
  assert.ok(
    rows('provider-rate-limit-retried', 'retry', 'violation').every((c) => c.fault_rule === 'rate limit never lifts'),
  );
  // the memory's embedding meets the outage; the search after it does not (a violation-only fault)
  const outage = rows('provider-outage-write-not-lost', 'keep', 'well-behaved');
  assert.deepEqual(
    outage.map((c) => [c.status, c.fault_rule]),
    [
      [500, 'embeddings down for the memory'],
      [200, null],
    ],
  );
  assert.deepEqual(
    rows('provider-outage-write-not-lost', 'keep', 'violation').map((c) => [c.status, c.fault_rule]),
    [[500, 'embeddings down for the search']],
  );
  assert.equal(rows('provider-outage-write-not-lost', 'offline', 'well-behaved').length, 0);
  const bad = rows('provider-bad-embedding-contained', 'keep', 'violation');
  assert.deepEqual(
    bad.map((c) => [c.fault, c.answer]),
    [
      ['wrong-dimension', '16-d vectors, 32-d asked'],
      ['wrong-dimension', '16-d vectors, 32-d asked'],
      ['empty-embedding', 'an empty vector per input'],
    ],
    'the Heron memory and its search get half-size vectors, the Finch memory an empty one',
  );
});

test('rejudge: the saved verdict input keeps the unserved fault, so a re-judged cell is an error again', async (t) => {
  const dir = tempDir(t, 'memeval-faults-rejudge-');
  const [, , , , offline] = targets();
  const run = await runInline(t, { targets: [offline!], config: { scenarioIds: ['provider-outage-write-not-lost'] } });
  const r = await memeval(['rejudge', run.runDir!, '--json', '--out', join(dir, 'again')]);
  const again = reportFromStdout(r);
  assert.deepEqual(
    again.results.map((c) => [c.phase, c.verdict]),
    [
      ['well-behaved', 'error'],
      ['violation', 'error'],
    ],
  );
  assert.match(again.results[0]!.reason, /provider fault\(s\) never served: embeddings down for the memory/);
});

test('a fault rule that cannot work is exit 3 with file, field and fix, before anything runs', async (t) => {
  const dir = tempDir(t, 'memeval-faults-bad-');
  const file = join(dir, 'bad-faults.json5');
  writeFileSync(
    file,
    JSON.stringify(
      scenario('bad-faults', {
        provider: {
          faults: [
            { name: 'short', on: 'chat', fault: 'wrong-dimension' },
            { name: 'short', on: 'embeddings', fault: 'timeout', retry_after: 2, dimensions: 3 },
            { on: 'embeddings', fault: 'http-429', contains: '$ref:nothing' },
            { on: 'embeddings', fault: 'http-503' },
          ],
        },
      }),
    ),
  );
  const r = await memeval(['validate', file]);
  assert.equal(r.exitCode, 3, String(r.stdout) + String(r.stderr));
  const text = String(r.stdout) + String(r.stderr);
  assert.match(text, /bad-faults\.json5/);
  assert.match(text, /provider\.faults\.3\.fault|provider\.faults\[3\]\.fault/);
  const fixed = JSON.parse(readFileSync(file, 'utf8')) as { provider: { faults: unknown[] } };
  fixed.provider.faults.pop();
  writeFileSync(file, JSON.stringify(fixed));
  const r2 = await memeval(['validate', file]);
  assert.equal(r2.exitCode, 3);
  const text2 = String(r2.stdout) + String(r2.stderr);
  assert.match(
    text2,
    /provider\.faults\[0\]\.on: "chat" but wrong-dimension is a fault of an embedding response; set on to "embeddings"/,
  );
  assert.match(text2, /provider\.faults\[1\]\.name: "short" is also the name of provider\.faults\[0\]/);
  assert.match(text2, /provider\.faults\[1\]\.retry_after: only an http-429 or http-500 fault/);
  assert.match(text2, /provider\.faults\[1\]\.dimensions: only a wrong-dimension fault/);
  assert.match(text2, /provider\.faults\[2\]\.contains: "\$ref:nothing" names no setup memory/);
});

test('a fault is served and counted in its stage: one spent on a setup request is not met by the phase, and the cell is an error', async (t) => {
  // setup stores the Osprey memory (its embedding request matches the fault); the phase only
  // stores another memory, so no phase request can meet the fault
  const base = (stage?: string) =>
    scenario(stage ? `fault-stage-${stage}` : 'fault-stage-default', {
      setup: { memories: [{ ref: 'backup', content: 'The Osprey backup job copies the billing database at 02:00' }] },
      provider: {
        faults: [
          {
            name: 'rate limited once',
            on: 'embeddings',
            contains: 'Osprey',
            fault: 'http-429',
            times: 1,
            ...(stage ? { stage } : {}),
          },
        ],
      },
      deterministic: {
        well_behaved: [{ op: 'remember', content: 'The Heron deploy script tags each release' }],
        violation: null,
      },
      assertions: [
        {
          kind: 'count',
          name: 'the memory is stored',
          phase: 'both',
          contains: 'Osprey backup job',
          op: 'gte',
          value: 1,
        },
      ],
    });
  const [keep] = targets();
  const r = await runInline(t, { scenarios: [base(), base('setup')], targets: [keep!] });
  assert.equal(r.exitCode, 1, r.output);
  const runDir = r.runDir!;
  const cell = (id: string) => r.results.find((c) => c.scenario === id)!;
  // the phase never met the fault: every assertion holds, and yet nothing about the fault was tested
  assert.equal(cell('fault-stage-default').verdict, 'error', r.output);
  assert.match(cell('fault-stage-default').reason, /provider fault\(s\) never served: rate limited once/);
  // a rule for the setup stage is served there, and counts
  assert.equal(cell('fault-stage-setup').verdict, 'pass', cell('fault-stage-setup').reason);
  const stages = (id: string) => {
    const db = new Database(join(runDir, cell(id).cell_dir, 'evidence.db'), { readonly: true });
    try {
      return db.prepare('SELECT stage, status, fault_rule FROM provider_calls ORDER BY seq').all();
    } finally {
      db.close();
    }
  };
  // every request carries the stage it arrived in; the phase's rule was not spent on setup
  assert.deepEqual(stages('fault-stage-default'), [
    { stage: 'setup', status: 200, fault_rule: null },
    { stage: 'step', status: 200, fault_rule: null },
  ]);
  assert.deepEqual(stages('fault-stage-setup'), [
    { stage: 'setup', status: 429, fault_rule: 'rate limited once' },
    { stage: 'step', status: 200, fault_rule: null },
  ]);
});
