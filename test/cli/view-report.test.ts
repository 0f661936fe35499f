import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CellResult, Report } from '../../src/core/results.ts';
import { buildMatrix } from '../../src/report/matrix.ts';
import { summarize } from '../../src/report/report.ts';
import { memeval } from '../helpers.js';
import { rawReport, runInline, scenario, tempDir, timeLimit, writeJson, type InlineConfig } from '../kit.ts';
import { assertFailingCellsVisible, openBrowser, shootAtWidths } from '../view-shots.ts';

/** good-one passes; broken-one counts "dark mode" twice where it is stored once: its well-behaved cell fails. */
function scenarios(dir: string, fixed: { good: boolean; bad: boolean }): string {
  mkdirSync(dir, { recursive: true });
  const failing = (id: string) => {
    const s = scenario(id);
    s.assertions = [
      { kind: 'count', name: 'dark mode twice', phase: 'well-behaved', contains: 'dark mode', op: 'eq', value: 2 },
      ...(s.assertions as object[]).slice(1),
    ];
    return s;
  };
  writeJson(join(dir, 'good-one.json5'), fixed.good ? scenario('good-one') : failing('good-one'));
  writeJson(join(dir, 'bad-one.json5'), fixed.bad ? scenario('bad-one') : failing('bad-one'));
  writeJson(join(dir, 'always-bad.json5'), failing('always-bad'));
  return dir;
}

/**
 * A 7-target (or 12-target) run made from a real one: each cell copied under six more target names (the
 * evidence folders too), matrix and summary rebuilt. Seven real targets would take minutes to
 * install and run; the page only sees names, cells and evidence.
 */
const SEVEN = ['server-memory', 'mem0-mcp', 'basic-memory', 'mcp-memory-service', 'kiro-memory', 'agentdb', 'cipher'];
const TWELVE = [...SEVEN, 'ai-devkit-memory', 'claude-memory-layer', 'memory-bank', 'graphiti-mcp', 'letta-memory'];

function manyTargets(from: string, to: string, names: string[]): string {
  cpSync(from, to, { recursive: true });
  const report = rawReport(from) as Report & { gate?: unknown };
  const results: CellResult[] = names.flatMap((name) =>
    report.results.map((r) => {
      if (name === r.target) return r;
      const cellDir = r.cell_dir.replace(`/${r.target}/`, `/${name}/`);
      cpSync(join(from, r.cell_dir), join(to, cellDir), { recursive: true });
      return { ...r, target: name, cell_id: r.cell_id.replace(`/${r.target}/`, `/${name}/`), cell_dir: cellDir };
    }),
  );
  delete report.gate;
  const targets = names.map((name) => ({ ...report.targets[0], name }));
  const summary = { ...summarize(results, false), exit_code: 1 };
  // one warning per target, as the report gives a cell warning of every target
  const warnings = names.map((n) => `${n}: recall format not declared; recall assertions read the raw result`);
  writeJson(join(to, 'report.json'), {
    ...report,
    targets,
    results,
    matrix: buildMatrix(results, names),
    summary,
    warnings: [...report.warnings, ...warnings],
  });
  return to;
}

test(
  'memeval view at 1280 and 1920 px: passing, failing (gated), 7-target and compare pages; every failing cell visible; chips filter; compare fails closed',
  { timeout: timeLimit(120_000) },
  async (t) => {
    const dir = tempDir(t);
    const before = scenarios(join(dir, 'before'), { good: true, bad: false });
    const after = scenarios(join(dir, 'after'), { good: false, bad: true });
    const expected = writeJson(
      join(dir, 'expected.json'),
      ['bad-one', 'always-bad'].map((s) => ({
        scenario: s,
        target: 'server-memory',
        phase: 'well-behaved',
        verdict: 'fail',
        assertions: ['dark mode twice'],
        reason: 'known: the store keeps one copy',
      })),
    );
    // all three at once: the later run's gate reads the same expected failures, so it needs no baseline run first
    const on = (scenarios: string, config: InlineConfig) =>
      runInline(t, { scenarios, targets: ['server-memory'], config }).then((r) => {
        assert.ok(r.runDir, `no run: ${r.output}`);
        return { ...r, runDir: r.runDir };
      });
    const [passing, earlier, later] = await Promise.all([
      on(before, { scenarioIds: ['good-one'] }),
      on(before, { gate: { expectedFailures: expected } }),
      on(after, { gate: { expectedFailures: expected } }),
    ]);
    assert.equal(passing.exitCode, 0, passing.output);
    assert.equal(earlier.exitCode, 0, earlier.output);
    assert.equal(later.exitCode, 1, later.output);
    const seven = manyTargets(later.runDir, join(dir, 'seven', 'run'), SEVEN);
    const twelve = manyTargets(later.runDir, join(dir, 'twelve', 'run'), TWELVE);

    const pages: Record<string, string> = {};
    await Promise.all(
      (
        [
          ['passing', passing.runDir, []],
          ['known-failures', earlier.runDir, []],
          ['failing', later.runDir, []],
          ['seven-targets', seven, []],
          ['twelve-targets', twelve, []],
          ['compare', later.runDir, ['--compare', earlier.runDir]],
        ] as const
      ).map(async ([name, runDir, extra]) => {
        const v = await memeval(['view', runDir, ...extra]);
        assert.equal(v.exitCode, 0, v.stderr);
        pages[name] = String(v.stdout).trim();
      }),
    );
    assert.match(pages.compare, /compare-.+\.html$/);

    const b = await openBrowser(t);
    const { tab } = b;
    const visible = async (what: string, expectFailing: number) => {
      const n = await assertFailingCellsVisible(tab, what);
      assert.equal(n, expectFailing, `${what}: failing cells`);
    };

    await shootAtWidths(b, pages.passing, 'passing', async () => {
      assert.match(await tab.locator('#title').innerText(), /✓ 2 passed, 0 failed/);
      await visible('passing', 0);
    });

    // failures the expected-failures list accepts: a green header, and the cells say "known failure", not "fail !"
    await shootAtWidths(b, pages['known-failures'], 'known-failures', async () => {
      assert.match(await tab.locator('#title').innerText(), /✓ .* 2 known failures accepted/);
      const known = tab.locator('#matrix button.cell.known');
      assert.equal(await known.count(), 2);
      for (const text of await known.allInnerTexts()) {
        assert.match(text, /known failure/);
        assert.doesNotMatch(text, /!/);
      }
      await visible('known failures', 0);
    });

    // against the expected failures: always-bad still fails (known), good-one fails newly, bad-one (listed) passes: fixed
    await shootAtWidths(b, pages.failing, 'failing', async () => {
      assert.match(await tab.locator('#title').innerText(), /✗ .*1 known failure accepted, 1 new failure, 1 fixed/);
      const gateOf = (id: string) => tab.locator(`#matrix button[data-cell-id="${id}"]`).getAttribute('data-gate');
      assert.equal(await gateOf('always-bad/server-memory/well-behaved'), 'known failure');
      assert.equal(await gateOf('good-one/server-memory/well-behaved'), 'new failure');
      assert.equal(await gateOf('bad-one/server-memory/well-behaved'), 'fixed');
      await visible('failing', 1);
      // the chips filter: "fail" shows the two failing cells, a second click shows all again
      await tab.locator('button.chip[data-chip="verdict:fail"]').click();
      assert.equal(await tab.locator('#matrix button.cell:visible').count(), 2);
      await tab.locator('button.chip[data-chip="gate:new failure"]').click();
      assert.deepEqual(
        await tab
          .locator('#matrix button.cell:visible')
          .evaluateAll((e) => e.map((x) => x.getAttribute('data-cell-id'))),
        ['good-one/server-memory/well-behaved'],
      );
      await tab.locator('button.chip[data-chip="gate:new failure"]').click();
      assert.equal(await tab.locator('#matrix button.cell:visible').count(), 6);
    });

    await shootAtWidths(b, pages['seven-targets'], 'seven-targets', async (_tab, width) => {
      // seven columns fit beside the scenario column: nothing to scroll to, nothing under the detail pane
      const overflow = await tab
        .locator('#matrix-wrap')
        .evaluate((e) => ({ scroll: e.scrollWidth, client: e.clientWidth }));
      assert.ok(overflow.scroll <= overflow.client + 1, `${width}px: matrix overflows ${JSON.stringify(overflow)}`);
      // 14 failing cells: always-bad and good-one (well-behaved) in each of 7 columns
      await visible('seven targets', 14);
      // seven identical warnings, one per target: one line with its count
      const warnings = await tab.locator('#run-warnings li').allInnerTexts();
      const grouped = warnings.filter((w) => /recall format not declared/.test(w));
      assert.equal(grouped.length, 1, warnings.join('\n'));
      assert.match(grouped[0], /×7/);
    });

    // twelve columns do not fit: the matrix scrolls inside its column, the scenario column stays, and
    // a failing cell scrolled into view is not under the scenario column or the detail pane
    await shootAtWidths(b, pages['twelve-targets'], 'twelve-targets', async (_tab, width) => {
      const overflow = await tab
        .locator('#matrix-wrap')
        .evaluate((e) => ({ scroll: e.scrollWidth, client: e.clientWidth }));
      if (width === 1920) assert.ok(overflow.scroll > overflow.client, `${width}px: expected a scrolling matrix`);
      await visible('twelve targets', 24);
    });

    await shootAtWidths(b, pages.compare, 'compare', async () => {
      assert.match(
        await tab.locator('#compare-title').innerText(),
        /1 regressed, 0 failing differently, 1 fixed, 0 changed, 0 not checked, 0 new, 0 removed, 4 unchanged of 6 cells in both/,
      );
      const change = tab.locator('#compare-matrix button.change[data-kind="regressed"]');
      assert.equal(await change.getAttribute('data-cell-id'), 'good-one/server-memory/well-behaved');
      assert.match(await change.innerText(), /well-behaved: pass → fail/);
      // each verdict opens its run's cell
      await tab.locator('#compare-matrix a[data-side="before"]').first().click();
      await tab.locator('#detail .from-run').waitFor();
      await tab.locator('#compare-matrix a[data-side="after"]').first().click();
      await tab.locator('#detail h2').filter({ hasText: 'good-one/server-memory/well-behaved' }).waitFor();
      assert.equal(await tab.locator('#detail .from-run').count(), 0);
      await visible('compare', 1);
    });
    assert.deepEqual(b.problems, []);

    // fail closed: no cell in common, or a report of another schema version, is an error, never "no changes"
    const elsewhere = join(dir, 'elsewhere');
    cpSync(passing.runDir, elsewhere, { recursive: true });
    const moved = rawReport(elsewhere) as Report;
    const rename = (r: CellResult) => ({
      ...r,
      target: 'other',
      cell_id: r.cell_id.replace('/server-memory/', '/other/'),
    });
    writeJson(join(elsewhere, 'report.json'), { ...moved, results: moved.results.map(rename) });
    const none = await memeval(['view', passing.runDir, '--compare', elsewhere]);
    assert.equal(none.exitCode, 3, String(none.stdout));
    assert.match(none.stderr, /have no cell in common/);
    const foreign = join(dir, 'foreign');
    cpSync(earlier.runDir, foreign, { recursive: true });
    const raw = rawReport(foreign);
    writeFileSync(join(foreign, 'report.json'), JSON.stringify({ ...raw, schema_version: 1 }));
    const old = await memeval(['view', later.runDir, '--compare', foreign]);
    assert.equal(old.exitCode, 3, String(old.stdout));
    assert.match(old.stderr, /--compare: the run to compare with: .*schema_version 1 is not 2/);
  },
);
