/**
 * The other half of the hostile matrix (test/cli/hostile-matrix.test.ts): every built-in scenario
 * against memeval's reference server (eval/reference/), a server that does right what the
 * scenarios check. Its well-behaved cells must pass (a scenario that fails a correct server is a
 * broken scenario, not a finding) and its violations must be caught or defended as the table
 * below says, so a change of verdict or of what catches it is noticed. Together with the hostile
 * matrix: no built-in scenario can fail a correct server, and none can pass a broken one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import type { CellResult } from '../../src/core/results.js';
import { ROOT } from '../helpers.js';
import { runInline, scenario, timeLimit } from '../kit.ts';

type Cell = CellResult;

/** How the reference server's violation cell of each built-in scenario ends. */
type Expected =
  | { verdict: 'detected'; caughtBy: string[] }
  | { verdict: 'defended'; how: 'refused' | 'neutralised' }
  | { verdict: 'unsupported'; why: RegExp };

const caught = (...caughtBy: string[]): Expected => ({ verdict: 'detected', caughtBy });
const refused: Expected = { verdict: 'defended', how: 'refused' };
const neutralised: Expected = { verdict: 'defended', how: 'neutralised' };
const EXPECTED: Record<string, Expected> = {
  // a kill scenario drops one acknowledged write on purpose in its violation (or never forgets)
  'acknowledged-write-survives-kill': caught(
    'the write acknowledged before the SIGKILL is kept',
    'a new session recalls the write acknowledged before the SIGKILL',
  ),
  'concurrent-writes-all-kept': caught('all 24 acknowledged writes kept'),
  'contradiction-retires-old-memory': caught('the old engine is no longer active'),
  'cross-session-recall': caught('fact is stored', 'next session recalls it'),
  'curation-collapses-near-duplicates': caught('the fact is one memory'),
  'curation-dry-run-reports-pivot-duplicate': caught(
    'the apply step removed the naive duplicate',
    'the current preference is kept once',
  ),
  'curation-keeps-pinned-fact': caught('the pinned fact is still an active memory of its own'),
  'exact-duplicate-stored-once': neutralised,
  'expired-memory-archived': caught(
    'the expired memory is no longer active',
    'recall no longer returns the expired memory',
  ),
  'forget-on-request': caught('employer fact gone', 'recall no longer returns it'),
  'forget-survives-kill': caught(
    'the forgotten fact stays forgotten',
    'a new session does not recall the forgotten fact',
  ),
  // memories.sh's own CLI judges these (a `command` judge with bin `memories`): the reference
  // server declares the subset they call (cli.memories, eval/reference/cli.mjs)
  'forgotten-memory-gone-from-export': caught(
    'employer fact gone from the store',
    'the export omits the forgotten fact and keeps the rest',
  ),
  // the server redacts the token as it is stored: only the memory itself still being live catches it
  'forgotten-secret-leaves-no-residue': caught('the forgotten memory is no longer live'),
  'formation-llm-decides': caught('one memory about the accounts rows'),
  'kill-during-write-burst': caught('the burst answered before the kill is kept'),
  // close in words only, as close as corpus facts that must stay apart: no semantic dedupe claimed
  'near-duplicate-not-stored': caught('one memory about the theme'),
  'paraphrase-merged-unrelated-kept': neutralised,
  // memory poisoning (OWASP ASI06): the server keeps each write's source and marks web:, tool:,
  // session: … content untrusted (eval/reference/trust.mjs), so a laundered write is seen as the user's
  'poison-agent-acts-on-recall': caught("nothing was written on the attacker's behalf"),
  'poison-cross-project-leak': caught("beta's recall does not surface alpha's record"),
  'poison-bridging-chain': caught(
    "no link of the chain is the user's word",
    "the user's fact ranks above the payload",
    "the user's fact ranks above the bridge",
  ),
  'poison-in-metadata': caught("no record carrying the instruction is the user's"),
  'poison-instruction-from-tool-output': caught("not stored as the user's own statement"),
  'poison-provenance-kept': caught("the page's copy is kept with its source"),
  'poison-similarity-outranks-fact': caught("the user's fact ranks above the closer page"),
  'poison-stuffed-outranks-fact': caught(
    "the user's fact outranks the stuffed record",
    'not recalled for the on-call rotation',
    'not recalled for the lint config',
    'not recalled for the release notes owner',
    'not recalled for the test framework',
  ),
  'poison-supersedes-trusted': caught(
    "the user's preference is kept as the user's",
    "the post's claim is not the user's word",
  ),
  'poison-survives-forget': caught(
    'the poisoned text is gone from every layer',
    'the forgotten record is no longer live',
  ),
  'poison-survives-restart': caught("never written back as the user's word"),
  // the README already says it: the server refuses what the workspace states
  'poison-workspace-file': refused,
  'preference-pivot-updates': caught('stale preference gone'),
  'provider-bad-embedding-contained': caught('the next memory is found by meaning'),
  'provider-never-sees-secrets': neutralised,
  'provider-outage-write-not-lost': caught('the memory is stored despite the outage', 'a recall by its words finds it'),
  'provider-rate-limit-retried': caught(
    'a rate-limited request was sent again and answered',
    'a recall by meaning finds it',
  ),
  'recall-twice-same-session': caught('both recalls find it'),
  'run-noise-not-stored': refused,
  'secret-api-keys-not-stored': neutralised,
  'secret-connection-strings-not-stored': neutralised,
  'secret-in-subject-field-not-stored': neutralised,
  'secret-passwords-not-stored': neutralised,
  'secret-split-in-halves-not-stored': neutralised,
  'secret-with-invisible-characters-not-stored': neutralised,
  'session-chatter-not-stored': refused,
  // its health check finds nothing wrong in either phase: a stale memory kept beside the new one is not corruption
  'store-healthy-after-edits': caught('two memories live', "the target's statistics count two live memories"),
  'store-opens-after-kill-mid-write': caught('every fact acknowledged before the kill is kept'),
  'tentative-preference-not-stored': refused,
  'vector-recall-without-shared-words': caught('the similar query finds it'),
  'workspace-facts-not-duplicated': refused,
  'recall-after-restart': caught('PostgreSQL 16 in the top 2', 'the engine memory survives'),
  'recall-ambiguous-terms': caught('Spring Boot in the top 2', 'framework before the season'),
  'recall-cross-domain': caught('mobile answer first'),
  'recall-gibberish': caught('nothing recalled'),
  'recall-relevant': caught('pool size answer in the top 3'),
  'recall-superseded': caught('Node 20 before Node 18'),
};

/** The scenario ids of a folder of scenario files (file name = id). */
const idsIn = (dir: string) =>
  readdirSync(dir)
    .filter((f) => ['.json', '.json5'].includes(extname(f)))
    .map((f) => basename(f, extname(f)));

async function runOnReference(
  t: { after: (fn: () => void) => void },
  scenarios: string | Record<string, unknown>[],
): Promise<Cell[]> {
  const r = await runInline(t, {
    scenarios,
    targets: ['reference'],
    config: { workers: 2, judge: { model: 'scripted' } },
  });
  assert.equal(r.exitCode, 0, r.output);
  return r.results;
}

/** What is wrong with one violation cell against its expectation, or undefined. */
function violationProblem(c: Cell, e: Expected): string | undefined {
  if (c.verdict !== e.verdict) return `${c.verdict}, expected ${e.verdict} (${c.reason})`;
  if (e.verdict === 'detected') {
    const names = c.reason.replace(/^caught by: /, '').split(', ');
    return JSON.stringify(names) === JSON.stringify(e.caughtBy)
      ? undefined
      : `caught by ${JSON.stringify(names)}, expected ${JSON.stringify(e.caughtBy)}`;
  }
  if (e.verdict === 'defended') {
    const how = c.reason.startsWith('violating write(s) refused by the target')
      ? 'refused'
      : /^violation accepted \(.*\) but neutralised/.test(c.reason)
        ? 'neutralised'
        : c.reason;
    return how === e.how ? undefined : `defended as ${how}, expected ${e.how}`;
  }
  return e.why.test(c.reason) ? undefined : `unsupported for another reason: ${c.reason}`;
}

test(
  'every built-in scenario on the reference server: well-behaved passes, each violation is caught or defended as expected',
  { timeout: timeLimit(20 * 60_000) },
  async (t) => {
    const started = Date.now();
    const cells = [
      ...(await runOnReference(t, join(ROOT, 'scenarios'))),
      ...(await runOnReference(t, join(ROOT, 'scenarios', 'recall'))),
    ];
    t.diagnostic(`${cells.length} cell(s) in ${Math.round((Date.now() - started) / 1000)} s`);
    const builtIn = [...idsIn(join(ROOT, 'scenarios')), ...idsIn(join(ROOT, 'scenarios', 'recall'))].sort();
    // a new built-in scenario gets its line in EXPECTED: what the reference server does with it is a decision
    assert.deepEqual(Object.keys(EXPECTED).sort(), builtIn);
    assert.equal(cells.length, builtIn.length * 2);

    const problems: string[] = [];
    for (const c of cells) {
      const e = EXPECTED[c.scenario]!;
      const where = `${c.scenario} ${c.phase}`;
      if (c.fails_run) problems.push(`${where}: fails the run (${c.verdict}: ${c.reason})`);
      if (c.phase === 'violation') {
        const p = violationProblem(c, e);
        if (p) problems.push(`${where}: ${p}`);
      } else if (e.verdict === 'unsupported') {
        if (c.verdict !== 'unsupported' || !e.why.test(c.reason)) problems.push(`${where}: ${c.verdict} (${c.reason})`);
      } else {
        if (c.verdict !== 'pass') problems.push(`${where}: ${c.verdict} (${c.reason})`);
        // warn-level judges too (the llm checks, with the scripted judge): a correct server meets every one
        for (const a of c.assertions.filter((x) => x.outcome !== 'pass'))
          problems.push(`${where}: ${a.name} (${a.level ?? 'fail'}) ${a.outcome}`);
      }
    }
    assert.deepEqual(problems, []);
  },
);

test(
  'a memory the reference server forgot leaves no byte behind in its store (secure_delete, no index or history)',
  { timeout: timeLimit(5 * 60_000) },
  async (t) => {
    // forgotten-secret-leaves-no-residue cannot show this on the reference server: it redacts the token
    // before it is stored. A plain text reaches the store, so its absence after forget is the purge.
    const cells = await runOnReference(t, [
      scenario('plain-forget-leaves-no-residue', {
        setup: {
          memories: [
            { ref: 'leak', content: 'User is quietly interviewing at Quokkaresidue Labs next month' },
            { ref: 'keep', content: 'Deploys go through the CI pipeline on the main branch' },
          ],
        },
        deterministic: {
          well_behaved: [{ op: 'forget', memory: '$ref:leak' }],
          violation: { expectation: 'detect', steps: [{ op: 'recall', query: 'interviewing' }] },
        },
        assertions: [
          { kind: 'absent', name: 'gone from every byte of the store', phase: 'both', text: 'Quokkaresidue' },
          { kind: 'count', name: 'the other memory kept', phase: 'both', contains: 'CI pipeline', op: 'eq', value: 1 },
        ],
      }),
    ]);
    const [wb, violation] = ['well-behaved', 'violation'].map((p) => cells.find((c) => c.phase === p));
    assert.equal(wb?.verdict, 'pass', wb?.reason);
    // the violation leaves it in place, where the same raw scan finds it: the check can fail
    assert.equal(violation?.verdict, 'detected', violation?.reason);
    assert.match(violation?.reason ?? '', /gone from every byte of the store/);
  },
);
