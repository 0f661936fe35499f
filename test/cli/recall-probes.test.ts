/**
 * Recall probes kept in the evidence: a recall-suite scenario on server-memory asks each distinct
 * query once per cell (two rank checks and an llm check over "Spring Boot" are one search), keeps
 * it in evidence.db `recall_probes`, and `rejudge` judges the recall assertions again from it
 * without starting the target; evidence from before the table existed makes them `error`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { CellResult } from '../../src/core/results.ts';
import { memeval, ROOT } from '../helpers.ts';
import { rawReport, reportFromStdout, runInline, timeLimit } from '../kit.ts';

const ENV = { NO_COLOR: '1', FORCE_COLOR: '0', MEMEVAL_CACHE_DIR: process.env.MEMEVAL_CACHE_DIR ?? '' };

/** a judgment of a re-judged report: whether it was judged again */
type Judged = CellResult['assertions'][number] & { rejudge?: { rejudged: boolean } };

const named = (c: CellResult, name: string): Judged =>
  c.assertions.find((a) => a.name === name) ?? assert.fail(`no assertion "${name}" in ${c.cell_id}`);

function probeSearches(cellDir: string): string[] {
  return readFileSync(join(cellDir, 'probe-calls.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { tool?: string; arguments?: { query?: string } })
    .filter((c) => c.tool === 'search_nodes')
    .map((c) => c.arguments?.query ?? '');
}

test(
  'a recall-suite cell probes each distinct query once, keeps it, and rejudge --judge-model scripted judges the stored probes',
  { timeout: timeLimit(240_000) },
  async (t) => {
    const r = await runInline(t, {
      scenarios: join(ROOT, 'scenarios', 'recall'),
      targets: ['server-memory'],
      config: { scenarioIds: ['recall-ambiguous-terms'], workers: 2 },
    });
    const runDir = r.runDir ?? assert.fail(`the run wrote no run directory:\n${r.output}`);
    const { report } = r;
    assert.equal(report.results.length, 2, r.output);
    for (const cell of report.results) {
      const cellDir = join(runDir, cell.cell_dir);
      // "Spring Boot": two rank checks and the llm check; "node pool": two rank checks
      assert.deepEqual(probeSearches(cellDir), ['Spring Boot', 'node pool'], cell.phase);
      const db = new Database(join(cellDir, 'evidence.db'), { readonly: true });
      const rows = db
        .prepare('SELECT query, result_text, items, is_error, unreadable, ms FROM recall_probes')
        .all() as {
        query: string;
        result_text: string;
        items: string;
        is_error: number;
        unreadable: string | null;
        ms: number;
      }[];
      db.close();
      assert.deepEqual(
        rows.map((p) => [p.query, p.is_error, p.unreadable]),
        [
          ['Spring Boot', 0, null],
          ['node pool', 0, null],
        ],
      );
      const items = JSON.parse(rows[0].items) as { rank: number; content: string }[];
      assert.ok(items.length > 0 && rows[0].result_text.length > 0, rows[0].result_text);
      assert.deepEqual(
        items.map((i) => i.rank),
        items.map((_, i) => i + 1),
      );
      // the two checks over one query read one result
      assert.deepEqual(
        (named(cell, 'Spring Boot in the top 2').actual as { results: number }).results,
        (named(cell, 'framework before the season').actual as { results: number }).results,
      );
      assert.equal(named(cell, 'results are relevant').outcome, 'abstain');
    }
    const wb = r.cell('recall-ambiguous-terms', 'well-behaved');

    // the page shows each probe's items
    const page = await memeval(['view', runDir], { env: ENV });
    assert.equal(page.exitCode, 0, String(page.stderr));
    const html = readFileSync(join(runDir, 'report.html'), 'utf8');
    assert.match(html, /recall probes \(/);
    assert.match(html, /"probes":\[\{"query":"Spring Boot","items":\[\{"rank":1,"content":/);

    // the violation cell's evidence as a memeval from before stored probes wrote it: no table, its own sha256
    const vi = r.cell('recall-ambiguous-terms', 'violation');
    const viDir = join(runDir, vi.cell_dir);
    const db = new Database(join(viDir, 'evidence.db'));
    db.exec('DROP TABLE recall_probes');
    db.close();
    // edited as plain JSON: the schema would drop what it does not declare
    const raw = rawReport(runDir) as { results: { phase: string; evidence_sha256: Record<string, string> }[] };
    const rawVi = raw.results.find((c) => c.phase === 'violation') ?? assert.fail('no violation cell');
    rawVi.evidence_sha256['evidence.db'] = createHash('sha256')
      .update(readFileSync(join(viDir, 'evidence.db')))
      .digest('hex');
    writeFileSync(join(runDir, 'report.json'), JSON.stringify(raw));

    // rejudge with the scripted judge: the llm check over recall is decided from the stored probe,
    // the rank checks are judged again to the same outcomes, and the target is not asked
    const before = [wb, vi].map((c) => probeSearches(join(runDir, c.cell_dir)));
    const rj = await memeval(['rejudge', runDir, '--judge-model', 'scripted', '--json'], {
      env: ENV,
      timeout: timeLimit(60_000),
    });
    const again = reportFromStdout(rj);
    const wb2 = again.results.find((c) => c.phase === 'well-behaved') ?? assert.fail('no well-behaved cell rejudged');
    const llm = named(wb2, 'results are relevant');
    assert.ok(['pass', 'fail'].includes(llm.outcome), `${llm.outcome}: ${llm.detail}`);
    assert.equal(llm.rejudge?.rejudged, true);
    for (const a of wb2.assertions.filter((x): x is Judged => x.kind === 'rank')) {
      assert.equal(a.rejudge?.rejudged, true, a.name);
      assert.equal(a.outcome, named(wb, a.name).outcome, a.name);
      assert.deepEqual(a.actual, named(wb, a.name).actual, a.name);
    }
    assert.equal(wb2.verdict, wb.verdict, wb2.reason);
    // evidence without the table: every assertion over a recall says why it cannot be judged
    const vi2 = again.results.find((c) => c.phase === 'violation') ?? assert.fail('no violation cell rejudged');
    assert.equal(vi2.verdict, 'error', vi2.reason);
    for (const a of vi2.assertions) {
      assert.equal(a.outcome, 'error', a.name);
      assert.match(a.detail ?? '', /no recall_probes table/, a.name);
    }
    assert.equal(rj.exitCode, 1, String(rj.stderr));
    assert.deepEqual(
      [wb, vi].map((c) => probeSearches(join(runDir, c.cell_dir))),
      before,
      'rejudge asked the target nothing',
    );
  },
);
