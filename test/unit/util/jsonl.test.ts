// One rule for every JSONL file memeval reads (util/jsonl.ts): a torn last line is left out and
// reported, a bad line anywhere else is an error, and no reader turns either into "nothing there".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { JsonlError, readJsonl } from '../../../src/util/jsonl.ts';
import { CallsLogError, isToolCall, readCalls, readCallsLog } from '../../../src/mcp/calls-log.ts';
import { cappedCalls, capLog, exitLog, proxyStopProblems } from '../../../src/mcp/proxy.ts';
import { refusalWarnings } from '../../../src/fixture/netguard.ts';
import { noiseWarnings } from '../../../src/mcp/noise.ts';
import { writeRunReport } from '../../../src/report/run-report.ts';
import type { CellResult } from '../../../src/core/results.ts';
import { tempDir } from '../../helpers.ts';

const rec = z.object({ n: z.number() });
const call = (seq: number, extra: object = {}) =>
  JSON.stringify({
    seq,
    session: 1,
    stage: 'step',
    method: 'tools/call',
    op: 'remember',
    tool: 'save',
    arguments: { text: 'x' },
    result_text: 'ok',
    is_error: false,
    ms: 1,
    ts: 't',
    ...extra,
  });

test('readJsonl: a missing file is empty; blank lines are skipped; a torn last line is returned, not parsed or thrown', (t) => {
  const dir = tempDir(t);
  assert.deepEqual(readJsonl(join(dir, 'none.jsonl'), rec), { records: [] });
  const f = join(dir, 'a.jsonl');
  writeFileSync(f, '{"n":1}\n\n{"n":2}\n{"n":');
  assert.deepEqual(readJsonl(f, rec), { records: [{ n: 1 }, { n: 2 }], torn: '{"n":' });
  writeFileSync(f, '{"n":1}\n{"n":2}');
  assert.deepEqual(
    readJsonl(f, rec),
    { records: [{ n: 1 }, { n: 2 }] },
    'a last line without its newline that parses is whole',
  );
});

test('readJsonl: a bad line with lines after it, or a record the schema refuses, is an error naming the line', (t) => {
  const f = join(tempDir(t), 'a.jsonl');
  writeFileSync(f, '{"n":1}\n{"n":\n{"n":3}\n');
  assert.throws(
    () => readJsonl(f, rec),
    (e: Error) => e instanceof JsonlError && /a\.jsonl:2: not JSON/.test(e.message),
  );
  writeFileSync(f, '{"n":1}\n{"n":');
  assert.equal(readJsonl(f, rec).torn, '{"n":');
  writeFileSync(f, '{"n":1}\n{"n":"two"}\n');
  assert.throws(
    () => readJsonl(f, rec),
    (e: Error) => e instanceof JsonlError && /a\.jsonl:2: n:/.test(e.message),
  );
  // a torn line a later writer appended to is in the middle now: damage, not a cut-short file
  writeFileSync(f, '{"n":1}\n{"n":{"n":3}\n');
  assert.throws(() => readJsonl(f, rec), JsonlError);
});

test('calls log: a torn last record is reported by readCallsLog and refused by readCalls (a lost call cannot be judged)', (t) => {
  const f = join(tempDir(t), 'calls.jsonl');
  writeFileSync(f, `${call(1, { method: 'tools/list', tool: '' })}\n${call(2)}\n${call(3).slice(0, 30)}`);
  const log = readCallsLog(f);
  assert.deepEqual(
    log.calls.map((c) => c.seq),
    [1, 2],
  );
  assert.ok(log.torn?.startsWith('{"seq":3'));
  assert.throws(
    () => readCalls(f),
    (e: Error) => e instanceof CallsLogError && /calls\.jsonl ends in a torn line/.test(e.message),
  );
  writeFileSync(f, `${call(1)}\n${JSON.stringify({ seq: 2, tool: 'save' })}\n`);
  assert.throws(() => readCalls(f), JsonlError, 'a record without the fields a verdict reads is refused');
  // a record from before the handshake was logged has no method: a tools/call
  assert.equal(isToolCall({}), true);
  assert.equal(isToolCall({ method: 'tools/list' }), false);
});

test('proxy notes: a torn exit note is a shutdown problem; a torn cap note still counts as a refusal', (t) => {
  const log = join(tempDir(t), 'calls.jsonl');
  writeFileSync(
    exitLog(log),
    `${JSON.stringify({ session: 1, asked: 'stdin', code: 0, signal: null })}\n{"session":2,"ask`,
  );
  assert.deepEqual(proxyStopProblems(log).length, 1);
  assert.match(proxyStopProblems(log)[0], /exit note of the proxy is lost/);
  writeFileSync(capLog(log), `${JSON.stringify({ tool: 'save', call: 3, cap: 2, ts: 't' })}\n{"tool":"sa`);
  assert.equal(cappedCalls(log), 2);
});

test('network and noise logs: a damaged line is said in a warning, not skipped in silence (fails on main before this change)', (t) => {
  const dir = tempDir(t);
  const net = join(dir, 'network.jsonl');
  writeFileSync(
    net,
    `${JSON.stringify({ host: 'a.example', port: 443, via: 'connect' })}\n{oops\n${JSON.stringify({ host: 'b.example', port: null, via: 'dns' })}\n`,
  );
  assert.match(refusalWarnings(net).join('\n'), /guard's log is damaged: .*network\.jsonl:2/);
  writeFileSync(net, `${JSON.stringify({ host: 'a.example', port: 443, via: 'connect' })}\n{"host":"b.ex`);
  assert.deepEqual(refusalWarnings(net), [
    'network refused: a.example (connect :443)',
    'network refused: an attempt whose note is lost: network.jsonl ends in a torn line (a writer stopped mid-record): {"host":"b.ex',
  ]);
  const noise = join(dir, 'noise.jsonl');
  writeFileSync(noise, `${JSON.stringify({ line: 'banner' })}\n{"line":"half`);
  assert.equal(noiseWarnings(noise).length, 2);
  assert.match(noiseWarnings(noise)[1], /torn line/);
});

test("the run's calls.jsonl names a cell whose calls log it could not copy whole (fails on main before this change)", (t) => {
  const runDir = tempDir(t);
  const cell = (id: string): CellResult => {
    const dir = join(runDir, 'cells', id);
    mkdirSync(dir, { recursive: true });
    return {
      cell_id: id,
      scenario: 's',
      target: 't',
      phase: 'well-behaved',
      driver: 'replay',
      verdict: 'pass',
      reason: '',
      fails_run: false,
      steps: [],
      assertions: [],
      fixture: 'removed',
      warnings: [],
      duration_ms: 1,
      cell_dir: dir,
    } as unknown as CellResult;
  };
  const torn = cell('torn');
  writeFileSync(join(runDir, 'cells', 'torn', 'calls.jsonl'), `${call(1)}\n${call(2).slice(0, 20)}`);
  const bad = cell('bad');
  writeFileSync(join(runDir, 'cells', 'bad', 'calls.jsonl'), `not json\n${call(2)}\n`);
  const { report } = writeRunReport(
    {
      runId: 'r',
      runDir,
      layer: 'deterministic',
      startedAt: 't',
      options: {},
      scenarios: ['s'],
      targets: [],
      results: [torn, bad],
      interrupted: false,
    },
    {},
  );
  assert.equal(readFileSync(join(runDir, 'calls.jsonl'), 'utf8').trim().split('\n').length, 1);
  assert.match(report.warnings.join('\n'), /torn: calls\.jsonl ends in a torn line/);
  assert.match(
    report.warnings.join('\n'),
    /bad: its calls are not in the run's calls\.jsonl: .*calls\.jsonl:1: not JSON/,
  );
});
