/**
 * Re-judging agent cells (claude-code with the scripted model): a fail the agent earned stays
 * fail, and the memory refs as the agent left them are what live judging and rejudge both read.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { agentRun } from '../agent-kit.ts';
import { memeval, ONLY_NEGATIVE_CHECKS } from '../helpers.ts';
import { reportFromStdout, scenario, timeLimit } from '../kit.ts';

// memeval's cache as the rest of the suite has it (MEMEVAL_CACHE_DIR when set, else the default)
const ENV = { NO_COLOR: '1' };

test(
  'an agent cell that failed because the agent never touched memory stays fail after rejudge',
  { timeout: timeLimit(600_000) },
  async (t) => {
    const r = await agentRun(t, 'claude-code', {
      scenarios: [ONLY_NEGATIVE_CHECKS],
      config: { agent: { policy: 'no-memory' } },
    });
    const runDir = r.runDir ?? assert.fail(`the run wrote no run directory:\n${r.output}`);
    const [cell] = r.results;
    assert.equal(cell.verdict, 'fail', `${cell.verdict}: ${cell.reason}`);
    assert.match(cell.reason ?? '', /made no memory call/);
    assert.equal(r.exitCode, 1);
    const rj = await memeval(['rejudge', runDir, '--json'], { env: ENV, timeout: timeLimit(240_000) });
    const [again] = reportFromStdout(rj).results;
    assert.equal(again.verdict, 'fail', `${again.verdict}: ${again.reason}`);
    assert.match(again.reason ?? '', /made no memory call/);
    assert.equal(rj.exitCode, 1);
  },
);

test(
  'an agent cell judges the memory refs as the agent left them (an updated seed), and rejudge reads the same',
  { timeout: timeLimit(600_000) },
  async (t) => {
    const pivot = scenario('pivot-agent', {
      setup: { memories: [{ ref: 'indent', content: 'User prefers tabs for indentation' }] },
      deterministic: {
        well_behaved: [{ op: 'update', memory: '$ref:indent', content: 'User prefers 4 spaces for indentation' }],
        violation: null,
      },
      real_model: { sessions: [{ prompts: ["I've switched from tabs to 4 spaces. Update what you remember."] }] },
      assertions: [
        { kind: 'count', name: 'the ref is stored once', phase: 'both', ref: '$ref:indent', op: 'eq', value: 1 },
      ],
    });
    const r = await agentRun(t, 'claude-code', { scenarios: [pivot] });
    const runDir = r.runDir ?? assert.fail(`the run wrote no run directory:\n${r.output}`);
    const [cell] = r.results;
    assert.equal(cell.verdict, 'pass', `${cell.verdict}: ${cell.reason} ${JSON.stringify(cell.assertions)}`);
    assert.equal(cell.judge_input?.memory_refs?.indent?.content, 'User prefers 4 spaces for indentation');
    assert.equal(r.exitCode, 0);
    const rj = await memeval(['rejudge', runDir, '--json'], { env: ENV, timeout: timeLimit(240_000) });
    assert.equal(rj.exitCode, 0, String(rj.stderr));
    const [again] = reportFromStdout(rj).results;
    assert.equal(again.verdict, 'pass', `${again.verdict}: ${again.reason}`);
  },
);
