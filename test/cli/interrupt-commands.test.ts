/**
 * A Ctrl-C during `memeval rejudge` or `memeval judge calibrate` goes through the one interrupt
 * handler (cli/interrupt.ts), as in `memeval run`: the command stops before its next cell or
 * case, writes what it has marked interrupted, and exits 130. Before, the entry's default
 * handler ended the process at once with no report.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { run } from '../../src/index.js';
import { memeval, scenario, tempDir, writeJson, timeLimit } from '../helpers.js';

type T = { after: (fn: () => void | Promise<void>) => void };

const ANSWER = JSON.stringify({ verdict: 'pass', confidence: 0.9, reasoning: 'held, then answered' });

/** A loopback OpenAI-compatible judge that holds its first request until `release()`, then answers every one at once. */
async function heldJudge(t: T) {
  let requests = 0;
  let held: ServerResponse | undefined;
  let arrived!: () => void;
  const first = new Promise<void>((r) => (arrived = r));
  const answer = (res: ServerResponse) => {
    res.setHeader('content-type', 'application/json');
    res.end(
      JSON.stringify({
        id: 'chatcmpl-held',
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: 'held-judge',
        choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: ANSWER } }],
        usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
      }),
    );
  };
  let released = false;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      requests++;
      if (requests === 1 && !released) {
        held = res;
        arrived();
      } else answer(res);
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  t.after(() => new Promise<void>((ok) => server.close(() => ok())));
  const release = () => {
    released = true;
    if (held) answer(held);
  };
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    first,
    release,
    requests: () => requests,
  };
}

/** Send SIGINT once the judge holds a request; answer it once memeval says it is interrupted (or has exited). */
async function interruptWhileJudging(child: ReturnType<typeof memeval>, judge: Awaited<ReturnType<typeof heldJudge>>) {
  let stderr = '';
  let exited = false;
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  child.on('exit', () => (exited = true));
  await Promise.race([judge.first, child]);
  child.kill('SIGINT');
  await new Promise<void>((ok) => {
    const check = () => (exited || /interrupted/.test(stderr) ? ok() : setTimeout(check, 20));
    check();
  });
  judge.release();
  return child;
}

test(
  'Ctrl-C during judge calibrate writes calibration.json marked interrupted with the judgments made, and exits 130',
  { timeout: timeLimit(120_000) },
  async (t) => {
    const dir = tempDir(t);
    const judge = await heldJudge(t);
    const cases = writeJson(join(dir, 'cases.json5'), {
      schema_version: 1,
      title: 'held',
      cases: ['a', 'b', 'c'].map((id) => ({
        id,
        check: 'no-such-fact',
        fact: 'a credential',
        items: [`item ${id}`],
        expected: 'pass',
      })),
    });
    const out = join(dir, 'out');
    const child = memeval(
      ['judge', 'calibrate', cases, '--judge-model', 'held-judge', '--judge-base-url', judge.url, '--out', out],
      { env: { NO_COLOR: '1' }, timeout: timeLimit(100_000) },
    );
    const r = await interruptWhileJudging(child, judge);
    assert.equal(r.exitCode, 130, String(r.stderr));
    const [sub] = readdirSync(out);
    const written = JSON.parse(readFileSync(join(out, sub, 'calibration.json'), 'utf8'));
    assert.equal(written.status, 'interrupted');
    assert.equal(written.judgments.length, 1, 'the case in flight is finished, no further case is asked');
    assert.equal(judge.requests(), 1);
  },
);

test(
  'Ctrl-C during rejudge writes the new report marked interrupted (the cells not reached keep their verdicts) and exits 130',
  { timeout: timeLimit(240_000) },
  async (t) => {
    const dir = tempDir(t);
    const scenarios = join(dir, 'scenarios');
    mkdirSync(scenarios);
    const llm = {
      kind: 'llm',
      name: 'no run noise',
      phase: 'both',
      check: 'no-such-fact',
      subject: 'memories',
      fact: 'transient run state',
      scripted: { verdict: 'pass' },
    };
    writeJson(
      join(scenarios, 'held.json5'),
      scenario('held', { assertions: [...(scenario('x').assertions as object[]), llm] }),
    );
    const done = await run({
      scenariosDir: scenarios,
      targets: ['server-memory'],
      workers: 1,
      outDir: join(dir, 'runs'),
      judge: { model: 'scripted' },
    });
    assert.equal(done.exitCode, 0);
    const runDir = join(dir, 'runs', done.report.run_id);

    const judge = await heldJudge(t);
    const out = join(dir, 'rejudged');
    const child = memeval(
      ['rejudge', runDir, '--judge-model', 'held-judge', '--judge-base-url', judge.url, '--out', out, '--json'],
      { env: { NO_COLOR: '1' }, timeout: timeLimit(200_000) },
    );
    const r = await interruptWhileJudging(child, judge);
    assert.equal(r.exitCode, 130, String(r.stderr));
    const [sub] = readdirSync(out);
    const report = JSON.parse(readFileSync(join(out, sub, 'report.json'), 'utf8'));
    assert.equal(report.status, 'interrupted');
    assert.equal(report.summary.exit_code, 130);
    assert.deepEqual(JSON.parse(String(r.stdout)).run_id, report.run_id, '--json prints the report written');
    const [judged, notReached] = report.results;
    assert.equal(judged.rejudge.rejudged, true);
    assert.equal(notReached.rejudge.rejudged, false);
    assert.match(notReached.rejudge.why, /interrupted before this cell/);
    assert.equal(notReached.verdict, done.report.results.find((c) => c.cell_id === notReached.cell_id)!.verdict);
    assert.equal(judge.requests(), 1);
  },
);
