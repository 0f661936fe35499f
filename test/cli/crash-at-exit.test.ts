/**
 * A server that crashes when it is stopped, or loses its store on the way out, never earns a
 * pass: the cell is error naming the exit, and the fuzzer's flag exports to a scenario that
 * reproduces it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { once } from 'node:events';
import { execa } from 'execa';
import { exitLog, proxiesSettled, proxyStopProblems } from '../../src/mcp/proxy.ts';
import { localDecl, writeDecl } from '../fuzz-helpers.ts';
import { memeval, memevalArgv, ROOT } from '../helpers.ts';
import { FAULTY, faultyDecl, runInline, scenario, tempDir, timeLimit } from '../kit.ts';

test(
  'a deterministic cell whose server exits 1 when stopped, or empties its store at exit, is error, not pass',
  { timeout: timeLimit(300_000) },
  async (t) => {
    const r = await runInline(t, {
      scenarios: [scenario('plain')],
      targets: [faultyDecl('exit1', 'exit-at-stop:1'), faultyDecl('fine', 'ok')],
      config: { workers: 2 },
    });
    const cell = (target: string, phase: string) => r.cell('plain', phase, target);
    const wb = cell('exit1', 'well-behaved');
    assert.equal(wb.verdict, 'error', wb.reason);
    assert.match(wb.reason, /server session 1 exited with code 1 when its stdin closed \(asked to stop\)/);
    assert.match(wb.reason, /the assertions alone said pass/);
    assert.deepEqual(wb.shutdown, ['server session 1 exited with code 1 when its stdin closed (asked to stop)']);
    // the violation is caught by an assertion, but the store it was caught in is what a crash left
    assert.equal(cell('exit1', 'violation').verdict, 'error');
    assert.equal(cell('fine', 'well-behaved').verdict, 'pass', 'a server that exits 0 is unaffected');
    assert.equal(cell('fine', 'well-behaved').shutdown, undefined);
    assert.equal(r.exitCode, 1);

    // a store wiped on the way out holds no secret: absent alone would pass it
    const wiped = scenario('wiped', {
      deterministic: { well_behaved: [{ op: 'remember', content: 'token sk_test_abcdef123456' }], violation: null },
      assertions: [{ kind: 'absent', name: 'no token', phase: 'well-behaved', text: 'sk_test_abcdef123456' }],
    });
    const lost = (
      await runInline(t, {
        scenarios: [wiped],
        targets: [faultyDecl('loser', 'lose-store-at-stop')],
        config: { workers: 2 },
      })
    ).cell('wiped', 'well-behaved');
    assert.equal(lost.verdict, 'error', lost.reason);
    assert.match(
      lost.reason,
      /the store data\/store\.jsonl held \d+ bytes before server session 1 stopped and is empty after/,
    );
  },
);

test(
  'a crash-at-exit flag exports to a scenario whose violation cell is error on that server and defended on a fixed one',
  { timeout: timeLimit(300_000) },
  async (t) => {
    const dir = tempDir(t);
    const db = join(dir, 'flags.db');
    const declFile = writeDecl(dir, localDecl('exit1', 'exit-1-at-stop'));
    const fuzz = await memeval(
      [
        'fuzz',
        '--target',
        declFile,
        '--recipe',
        'exact-duplicate',
        '--budget',
        '1',
        '--seed',
        'x',
        '--flags',
        db,
        '--out',
        join(dir, 'out'),
      ],
      { timeout: timeLimit(120_000) },
    );
    assert.match(String(fuzz.stderr), /FLAG crash-at-exit/, String(fuzz.stderr));
    const rows = JSON.parse(String((await memeval(['flags', '--flags', db, '--json'])).stdout)) as {
      fingerprint: string;
    }[];
    assert.equal(rows.length, 1);
    const out = join(dir, 'regress');
    const exp = await memeval([
      'flags',
      'export',
      rows[0].fingerprint,
      '--flags',
      db,
      '--target',
      declFile,
      '--out',
      out,
    ]);
    assert.equal(exp.exitCode, 0, String(exp.stderr));
    const file = String(exp.stdout).split('\n')[0];
    assert.ok(JSON.parse(readFileSync(file, 'utf8')).tags.includes('crash-at-exit'));
    const run = await runInline(t, { scenarios: out, targets: [declFile], config: { workers: 1 } });
    const violation = run.results.find((r) => r.phase === 'violation')!;
    assert.equal(violation.verdict, 'error', JSON.stringify(violation));
    assert.match(violation.reason, /exited with code 1 when its stdin closed/);
    assert.equal(run.exitCode, 1);
    mkdirSync(join(dir, 'fixed'));
    const fixed = writeDecl(join(dir, 'fixed'), localDecl('exit1', ''));
    const rerun = await runInline(t, { scenarios: out, targets: [fixed], config: { workers: 1 } });
    assert.equal(rerun.exitCode, 0, JSON.stringify(rerun.results).slice(0, 2000));
  },
);

test(
  'mcp-proxy notes how a server an agent stopped exited: a non-zero exit at stop is a shutdown problem',
  { timeout: timeLimit(120_000) },
  async (t) => {
    const dir = tempDir(t);
    const stop = async (fault: string, session: string) => {
      const log = join(dir, `${fault}.jsonl`);
      // stdin closes at once: the agent is done with the server
      const r = await memeval(['mcp-proxy', '--log', log, '--session', session, '--', process.execPath, FAULTY], {
        input: '',
        env: { NO_COLOR: '1', FAULT: fault },
      });
      return { r, problems: proxyStopProblems(log) };
    };
    const crashed = await stop('exit-at-stop:1', '2');
    assert.equal(crashed.r.exitCode, 1);
    assert.deepEqual(crashed.problems, [
      "the agent's server session 2 exited with code 1 when its stdin closed (asked to stop)",
    ]);
    const fine = await stop('ok', '1');
    assert.equal(fine.r.exitCode, 0, String(fine.r.stderr));
    assert.deepEqual(fine.problems, []);
  },
);

/** Start the proxy in front of a server and wait until it answers the agent's first message. */
async function proxyUp(dir: string, log: string, server: string[], env: Record<string, string>) {
  const proxy = execa(
    process.execPath,
    [...memevalArgv(), 'mcp-proxy', '--log', log, '--session', '1', '--', process.execPath, ...server],
    {
      cwd: ROOT,
      reject: false,
      env: { NO_COLOR: '1', STORE: join(dir, 'store.jsonl'), ...env },
      timeout: timeLimit(120_000),
    },
  );
  proxy.stdin!.write(
    JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    }) + '\n',
  );
  await once(proxy.stdout!, 'data');
  // wrapped: an async function returning the subprocess itself would wait for it to end
  return { proxy };
}

const HOSTILE = [join(ROOT, 'eval', 'hostile', 'hostile.mjs')];

test(
  'an agent that stops its server with SIGINT (Claude Code) reaches it through its stdin: a crash at exit is noted',
  { timeout: timeLimit(180_000) },
  async (t) => {
    const dir = tempDir(t);
    const log = join(dir, 'calls.jsonl');
    // exits 1 when its stdin closes; it has no SIGINT handler, so as PID 1 of its namespace it would ignore the signal
    const { proxy } = await proxyUp(dir, log, [FAULTY], { FAULT: 'exit-at-stop:1' });
    proxy.kill('SIGINT');
    const r = await proxy;
    assert.equal(r.timedOut, false, 'the server never learnt it was to stop');
    assert.deepEqual(proxyStopProblems(log), [
      "the agent's server session 1 exited with code 1 when its stdin closed (asked to stop)",
    ]);
  },
);

test(
  'an agent that kills the recording proxy as it stops the server (Codex, Claude Code) leaves the crash at exit noted',
  { timeout: timeLimit(180_000) },
  async (t) => {
    const dir = tempDir(t);
    const log = join(dir, 'calls.jsonl');
    const { proxy } = await proxyUp(dir, log, HOSTILE, { HOSTILE: 'crash-exit' });
    proxy.kill('SIGINT');
    proxy.kill('SIGKILL');
    await proxy;
    await proxiesSettled(log, 60_000);
    const problems = proxyStopProblems(log);
    assert.equal(problems.length, 1, JSON.stringify(problems));
    assert.match(problems[0], /session 1 exited with code 70 when its stdin closed \(asked to stop\)/);
  },
);

test(
  'an agent that closes the stdin of an honest server and kills the proxy at once leaves no shutdown problem',
  { timeout: timeLimit(180_000) },
  async (t) => {
    const dir = tempDir(t);
    const log = join(dir, 'calls.jsonl');
    const { proxy } = await proxyUp(dir, log, HOSTILE, { HOSTILE: 'honest' });
    proxy.stdin!.end();
    proxy.kill('SIGKILL');
    await proxy;
    await proxiesSettled(log, 60_000);
    assert.deepEqual(proxyStopProblems(log), []);
    assert.ok(existsSync(exitLog(log)), 'the proxy noted no start');
  },
);
