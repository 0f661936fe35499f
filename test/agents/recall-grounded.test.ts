/**
 * Recall quality measured through an agent (codex with the scripted model): a built-in recall
 * scenario's prompt makes the agent search the seeded corpus and answer; the answer is checked
 * with `transcript` and with a grounded llm check (faithful) that reads the recall calls of its
 * conversation at the recording point. rejudge judges it again from the stored evidence. An agent
 * that never recalls leaves the grounded check nothing to stand on: `error`, never `pass`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getAgent, installAgent } from '../../src/agent/registry.ts';
import { memeval, ROOT, tempDir, timeLimit } from '../helpers.ts';

const ENV = { NO_COLOR: '1', MEMEVAL_CACHE_DIR: process.env.MEMEVAL_CACHE_DIR ?? '' };
const RECALL = join(ROOT, 'scenarios', 'recall');
const GROUNDED = 'the answer is grounded in what was recalled';

const runIn = (out: string) =>
  join(
    out,
    readdirSync(out).find((d) => !d.startsWith('rejudge-'))!,
  );
const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8'));
type Judgment = { name: string; outcome: string; level?: string; detail: string; llm?: Record<string, unknown> };

async function runRecallScenario(out: string, extra: string[], id = 'recall-relevant') {
  return memeval(
    [
      'run',
      '--agent-turn',
      '--agent',
      'codex',
      '--model',
      'scripted',
      '--scenarios',
      RECALL,
      '--scenario',
      id,
      '--judge-model',
      'scripted',
      '--judge-level',
      'fail',
      '--out',
      out,
      ...extra,
    ],
    { env: ENV, timeout: timeLimit(300_000) },
  );
}

test(
  'recall-relevant through codex: the agent recalls, its answer states the pool size and is judged faithful to what it recalled; rejudge agrees from the evidence',
  { timeout: timeLimit(600_000) },
  async (t) => {
    await installAgent(getAgent('codex'), (s) => t.diagnostic(s));
    const out = join(tempDir(t), 'out');
    const r = await runRecallScenario(out, []);
    const runDir = runIn(out);
    const [cell] = readJson(join(runDir, 'report.json')).results;
    assert.equal(cell.verdict, 'pass', `${cell.verdict}: ${cell.reason}\n${String(r.stderr)}`);
    assert.equal(r.exitCode, 0);
    const by = new Map<string, Judgment>(cell.assertions.map((a: Judgment) => [a.name, a]));
    assert.equal(by.get('the answer states it')?.outcome, 'pass');
    const g = by.get(GROUNDED)!;
    assert.equal(g.outcome, 'pass', g.detail);
    assert.equal(g.level, 'fail', '--judge-level fail promoted the warn-level check');
    const grounding = g.llm!.grounding as { recall_calls: number; span: { first: number; last: number } };
    assert.equal(grounding.recall_calls, 1);
    const prompt = (g.llm!.calls as { prompt: string }[])[0].prompt;
    assert.match(prompt, /<data-[0-9a-f]{16} name="recalled">\n1\. search_nodes .*connection pool size/);
    assert.match(prompt, /pool size is 20 per service instance[\s\S]*<data-[0-9a-f]{16} name="subject">\n1\. Done\./);
    assert.deepEqual(cell.judge_input.answer_context.prompts, [
      'What is our database connection pool size? Search your memory before answering.',
    ]);
    const rj = await memeval(['rejudge', runDir, '--judge-model', 'scripted', '--json'], {
      env: ENV,
      timeout: timeLimit(120_000),
    });
    const [again] = JSON.parse(String(rj.stdout)).results;
    const g2 = again.assertions.find((a: Judgment) => a.name === GROUNDED);
    assert.equal(g2.rejudge.rejudged, true, 'judged again, not kept');
    assert.equal(g2.outcome, 'pass', g2.detail);
    assert.deepEqual(g2.llm.grounding.span, grounding.span, 'rejudge read the same calls rows');
  },
);

test(
  'an agent that answers without recalling: the grounded check is error (nothing to ground the answer in), never pass',
  { timeout: timeLimit(600_000) },
  async (t) => {
    await installAgent(getAgent('codex'), (s) => t.diagnostic(s));
    const out = join(tempDir(t), 'out');
    const r = await runRecallScenario(out, ['--policy', 'no-memory']);
    const [cell] = readJson(join(runIn(out), 'report.json')).results;
    assert.notEqual(cell.verdict, 'pass', cell.reason);
    assert.equal(r.exitCode, 1);
    const g = cell.assertions.find((a: Judgment) => a.name === GROUNDED);
    assert.equal(g.outcome, 'error', g.detail);
    assert.match(g.detail, /made no recall call in the conversation/);
  },
);

test(
  'hostile: a target whose every recall errors; the agent answers anyway and the grounded check is error (what it recalled is not known), never pass',
  { timeout: timeLimit(600_000) },
  async (t) => {
    await installAgent(getAgent('codex'), (s) => t.diagnostic(s));
    const out = join(tempDir(t), 'out');
    const target = join(ROOT, 'eval', 'hostile', 'hostile-recall-error.json5');
    const r = await runRecallScenario(out, ['--target', target], 'recall-cross-domain');
    const [cell] = readJson(join(runIn(out), 'report.json')).results;
    assert.notEqual(cell.verdict, 'pass', cell.reason);
    assert.equal(r.exitCode, 1);
    const g = cell.assertions.find((a: Judgment) => a.name === GROUNDED);
    assert.deepEqual([g.outcome, g.level], ['error', 'fail'], g.detail);
    assert.match(g.detail, /recall call \d+ \(recall\) errored \("recall failed: index unavailable"\)/);
  },
);
