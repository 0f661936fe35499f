/**
 * The `kill` step through the real CLI: each kill point fires where the scenario declares it,
 * read back from what the killed server had received (test/servers/kill-recorder.mjs logs every
 * byte it reads, and on SIGTERM what was still waiting in its stdin); a call never answered
 * because of the kill is neither a refusal nor a failure; hostile targets that lose acknowledged
 * writes on a kill, or tear their file, are caught; a kill step in the wrong place is refused
 * before anything runs (exit 3, naming the file, the field and the fix).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { memeval, ROOT, scenario, tempDir, timeLimit, writeJson } from '../helpers.js';

const ENV = { NO_COLOR: '1', FORCE_COLOR: '0', MEMEVAL_CACHE_DIR: process.env.MEMEVAL_CACHE_DIR ?? '' };

interface Step {
  index: number;
  op: string;
  ok: boolean;
  killed?: boolean;
  result?: string;
  kill?: { signal: string; point: string; fired: string; session: number; next_session: number; took: string };
  bytes?: never;
}
interface Cell {
  scenario: string;
  target: string;
  phase: string;
  verdict: string;
  reason: string;
  fixture: string;
  cell_dir: string;
  steps: (Step & { kill?: Step['kill'] & { bytes?: { sent: number; of: number } } })[];
  assertions: { name: string; outcome: string; detail: string }[];
}

function recorderTarget(dir: string): string {
  return writeJson(join(dir, 'kill-recorder.json5'), {
    name: 'kill-recorder',
    description: 'records every byte it reads (test/servers/kill-recorder.mjs)',
    server: {
      command: '{{node}}',
      args: [join(ROOT, 'test', 'servers', 'kill-recorder.mjs')],
      env: { STORE: '{{data}}/store.jsonl', RECEIVED: '{{fixture}}/received.jsonl' },
      startup_timeout_ms: 20000,
      call_timeout_ms: 20000,
    },
    store: { format: 'jsonl', path: '{{data}}/store.jsonl' },
    views: {
      memories:
        "SELECT json_extract(json, '$.id') AS id, json_extract(json, '$.text') AS content, NULL AS category, NULL AS source, NULL AS subject, NULL AS created_at, 0 AS is_deleted FROM store.records",
    },
    ops: {
      remember: [{ tool: 'remember', args: { text: '{{content}}' }, capture_id: 'stored (m-\\d+)' }],
      recall: [{ tool: 'recall', args: { query: '{{query}}' } }],
      forget: [{ tool: 'forget', args: { id: '{{memory.id}}' } }],
    },
    recall_results: { json: 'results' },
  });
}

const kept = (name: string, contains: string, value = 1) => ({
  kind: 'count',
  name,
  phase: 'both',
  contains,
  op: 'eq',
  value,
});

/** One scenario: a first write, the kill, the write it may land during, a write in the next session. */
function killScenario(id: string, kill: Record<string, unknown>, inFlight: string) {
  return scenario(id, {
    deterministic: {
      well_behaved: [
        { op: 'remember', content: 'Alpha fact written before the kill' },
        { op: 'kill', ...kill },
        { op: 'remember', content: inFlight },
        { op: 'remember', content: 'Zulu fact written after the kill' },
      ],
      violation: null,
    },
    assertions: [
      kept('the fact before the kill is kept', 'Alpha fact'),
      kept('the fact after the kill is kept', 'Zulu fact'),
      { kind: 'durable', name: 'every acknowledged write holds', phase: 'both' },
    ],
  });
}

async function run(t: { after: (fn: () => void) => void }, scenarios: Record<string, unknown>[], targets: string[]) {
  const dir = tempDir(t);
  const sc = join(dir, 'sc');
  mkdirSync(sc);
  for (const s of scenarios) writeJson(join(sc, `${s.id as string}.json`), s);
  const out = join(dir, 'out');
  const r = await memeval(
    [
      'run',
      '--scenarios',
      sc,
      '--target',
      targets.map((x) => (x.includes('/') ? x : join(dir, x))).join(','),
      '--out',
      out,
      '--keep',
    ],
    { env: ENV, timeout: timeLimit(180_000) },
  );
  const runs = existsSync(out) ? readdirSync(out) : [];
  assert.equal(runs.length, 1, `${r.stdout}\n${r.stderr}`);
  const runDir = join(out, runs[0]!);
  const cells = (JSON.parse(readFileSync(join(runDir, 'report.json'), 'utf8')) as { results: Cell[] }).results.map(
    (c) => ({ ...c, cell_dir: join(runDir, c.cell_dir) }),
  );
  t.after(() => {
    for (const c of cells) if (c.fixture?.startsWith('/')) rmSync(c.fixture, { recursive: true, force: true });
  });
  return { r, cells, dir };
}

/** What each server process of a cell read from its stdin, in order, by process. */
function received(cell: Cell): { pid: string; data: string; drained: boolean }[][] {
  const lines = readFileSync(join(cell.fixture, 'received.jsonl'), 'utf8').split('\n').filter(Boolean);
  const byPid = new Map<string, { pid: string; data: string; drained: boolean }[]>();
  for (const l of lines) {
    const x = JSON.parse(l) as { pid: string; data: string; drained?: boolean };
    byPid.set(x.pid, [...(byPid.get(x.pid) ?? []), { pid: x.pid, data: x.data, drained: Boolean(x.drained) }]);
  }
  return [...byPid.values()];
}

const text = (chunks: { data: string }[]) => chunks.map((c) => c.data).join('');

interface CallRow {
  session: number;
  tool: string;
  is_error: boolean;
  killed?: boolean;
  result_text: string;
  arguments: { text?: string };
}
const calls = (cell: Cell): CallRow[] =>
  readFileSync(join(cell.cell_dir, 'calls.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as CallRow);

test(
  'each kill point fires where declared: what the killed server had received says where',
  { timeout: timeLimit(240_000) },
  async (t) => {
    const dir = tempDir(t);
    recorderTarget(dir);
    const { r, cells } = await run(
      t,
      [
        killScenario('after-ack', { signal: 'SIGKILL', after: 'ack' }, 'Bravo fact written in the next session'),
        killScenario('bytes-term', { signal: 'SIGTERM', during: { bytes: 40 } }, 'Charlie fact cut after forty bytes'),
        killScenario('bytes-kill', { signal: 'SIGKILL', during: { bytes: 40 } }, 'Charlie fact cut after forty bytes'),
        killScenario('during-write', { signal: 'SIGKILL', during: 'write' }, 'Echo fact HOLD stored, answered late'),
      ],
      [join(dir, 'kill-recorder.json5')],
    );
    const cell = (id: string) => cells.find((c) => c.scenario === id)!;
    for (const c of cells) assert.equal(c.verdict, 'pass', `${c.scenario}: ${c.reason}`);
    assert.equal(r.exitCode, 0, String(r.stderr));

    // after "ack": the first server got the whole first write and nothing of the next; the next session did
    {
      const c = cell('after-ack');
      const [first, second] = received(c);
      assert.match(text(first!), /Alpha fact/);
      assert.doesNotMatch(text(first!), /Bravo/);
      assert.match(text(second!), /Bravo fact/);
      const k = c.steps.find((s) => s.op === 'kill')!.kill!;
      assert.deepEqual(
        [k.signal, k.point, k.fired, k.took, k.session, k.next_session],
        ['SIGKILL', 'after-ack', 'ack', 'SIGKILL', 1, 2],
      );
      assert.ok(
        calls(c).every((x) => !x.killed && !x.is_error),
        'every call answered',
      );
    }
    // during { bytes: 40 } with SIGTERM: the server drained its stdin when the signal came, and had
    // exactly the first 40 bytes of the in-flight request after the first write's
    {
      const c = cell('bytes-term');
      const [first, second] = received(c);
      const all = text(first!);
      const afterAlpha = all.slice(all.lastIndexOf('\n') + 1);
      assert.equal(Buffer.byteLength(afterAlpha), 40, JSON.stringify(all));
      assert.ok(
        first!.some((x) => x.drained),
        'the SIGTERM handler ran',
      );
      assert.match(afterAlpha, /^\{"/);
      assert.doesNotMatch(all, /Charlie/);
      assert.doesNotMatch(text(second!), /Charlie/, 'the cut request is not sent again');
      const k = c.steps.find((s) => s.op === 'kill')!.kill!;
      assert.deepEqual([k.point, k.fired, k.bytes?.sent], ['during-bytes', 'bytes-sent', 40]);
      assert.ok((k.bytes?.of ?? 0) > 40);
      const inFlight = c.steps[c.steps.findIndex((s) => s.op === 'kill') + 1]!;
      assert.deepEqual([inFlight.op, inFlight.ok, inFlight.killed], ['remember', false, true]);
      // the calls log: the cut call was never answered, and says so; it is no refusal (the cell passed)
      const cut = calls(c).find((x) => x.arguments?.text?.startsWith('Charlie'))!;
      assert.deepEqual([cut.is_error, cut.killed, cut.session], [true, true, 1]);
      assert.match(cut.result_text, /no answer: memeval killed the server with SIGTERM/);
    }
    // with SIGKILL there is no handler: the server had at most those 40 bytes, never the request
    {
      const c = cell('bytes-kill');
      const all = text(received(c)[0]!);
      const afterAlpha = all.slice(all.lastIndexOf('\n') + 1);
      assert.ok(Buffer.byteLength(afterAlpha) <= 40, JSON.stringify(afterAlpha));
      assert.doesNotMatch(all, /Charlie/);
      assert.equal(calls(c).find((x) => x.arguments?.text?.startsWith('Charlie'))?.killed, true);
    }
    // during "write": the server stored the write and holds its answer: the kill fired on the store's change
    {
      const c = cell('during-write');
      assert.match(text(received(c)[0]!), /Echo fact HOLD/);
      const k = c.steps.find((s) => s.op === 'kill')!.kill!;
      assert.deepEqual([k.point, k.fired], ['during-write', 'store-changed']);
      const echo = calls(c).find((x) => x.arguments?.text?.startsWith('Echo'))!;
      assert.deepEqual([echo.killed, echo.is_error], [true, true]);
      // stored but never acknowledged: durable lists it, it does not judge it
      const durable = c.assertions.find((a) => a.name === 'every acknowledged write holds')!;
      assert.equal(durable.outcome, 'pass');
      assert.match(durable.detail, /never answered .*Echo fact HOLD/);
    }
  },
);

test(
  'a target that loses acknowledged writes on a kill, or tears its file, is caught; SIGTERM for comparison',
  { timeout: timeLimit(240_000) },
  async (t) => {
    const out = join(tempDir(t), 'out');
    const hostile = (m: string) => join(ROOT, 'eval', 'hostile', `hostile-${m}.json5`);
    const r = await memeval(
      [
        'run',
        '--scenario',
        'acknowledged-write-survives-kill,store-opens-after-kill-mid-write',
        '--target',
        [hostile('lose-on-kill'), hostile('truncate-on-kill')].join(','),
        '--out',
        out,
      ],
      { env: ENV, timeout: timeLimit(180_000) },
    );
    const cells = (
      JSON.parse(readFileSync(join(out, readdirSync(out)[0]!, 'report.json'), 'utf8')) as { results: Cell[] }
    ).results;
    const cell = (s: string, target: string) =>
      cells.find((c) => c.scenario === s && c.target === target && c.phase === 'well-behaved')!;
    const outcome = (c: Cell, name: string) => c.assertions.find((a) => a.name === name)?.outcome;
    // lose-on-kill keeps writes in memory until it shuts down: SIGKILL loses one, SIGTERM lets it save
    const lose = cell('acknowledged-write-survives-kill', 'hostile-lose-on-kill');
    assert.equal(lose.verdict, 'fail', lose.reason);
    assert.equal(outcome(lose, 'the write acknowledged before the SIGKILL is kept'), 'fail');
    assert.equal(outcome(lose, 'the write acknowledged before the SIGTERM is kept'), 'pass');
    assert.equal(outcome(lose, 'every acknowledged write holds'), 'fail');
    // truncate-on-kill rewrites its file in place: the kill leaves a torn line, which the integrity
    // judge observes (a fail, not an error, although no other judge can read that row)
    const torn = cell('store-opens-after-kill-mid-write', 'hostile-truncate-on-kill');
    assert.equal(torn.verdict, 'fail', torn.reason);
    const integrity = torn.assertions.find((a) => a.name === 'the store opens and is well-formed after the kill')!;
    assert.equal(integrity.outcome, 'fail');
    assert.match(integrity.detail, /do not parse/);
    assert.equal(r.exitCode, 1, String(r.stderr));
  },
);

test('a kill step in the wrong place is refused before anything runs: exit 3 with the file, the field and the fix', async (t) => {
  const dir = tempDir(t);
  const sc = join(dir, 'sc');
  mkdirSync(sc);
  const bad = (id: string, well_behaved: unknown[], assertions?: unknown[]) =>
    writeJson(
      join(sc, `${id}.json`),
      scenario(id, { deterministic: { well_behaved, violation: null }, ...(assertions ? { assertions } : {}) }),
    );
  const write = { op: 'remember', content: 'User prefers dark mode' };
  bad('both-points', [write, { op: 'kill', after: 'ack', during: 'write' }, write]);
  bad('no-write-after', [write, { op: 'kill', during: 'write' }, { op: 'recall', query: 'dark' }]);
  bad('bytes-burst', [write, { op: 'kill', during: { bytes: 10 } }, { op: 'parallel', steps: [write, write] }]);
  bad('ack-first', [{ op: 'kill', after: 'ack' }, write]);
  bad('in-flight-ref', [
    write,
    { op: 'kill', during: 'write' },
    { op: 'remember', ref: 'cut', content: 'User prefers tabs' },
    { op: 'forget', memory: '$ref:cut' },
  ]);
  const r = await memeval(['validate', sc], { env: ENV });
  const err = `${r.stdout}\n${r.stderr}`;
  assert.equal(r.exitCode, 3, err);
  assert.match(
    err,
    /both-points\.json: deterministic\.well_behaved\[1\]: a kill step needs exactly one of `after: "ack"`/,
  );
  assert.match(
    err,
    /no-write-after\.json: deterministic\.well_behaved\[1\]\.during: .*must be a write.*but it is recall: put the write right after the kill/,
  );
  assert.match(err, /bytes-burst\.json: deterministic\.well_behaved\[1\]\.during\.bytes: .*use during: "write"/);
  assert.match(
    err,
    /ack-first\.json: deterministic\.well_behaved\[0\]\.after: .*nothing was written before it: put it right after/,
  );
  assert.match(
    err,
    /in-flight-ref\.json: deterministic\.well_behaved\[2\]: the memory "cut" .*deterministic\.well_behaved\[3\] names \$ref:cut/,
  );
});
