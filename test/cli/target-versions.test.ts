import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { findChromium } from '../setup/chromium.ts';
import { gate } from '../../src/report/gate.js';
import { memeval } from '../helpers.js';
import { runInline, scenario, tempDir, timeLimit, writeJson } from '../kit.ts';

// server-memory's pinned version is a dependency of memeval; OLD is installed into the cache by
// the run. They differ in search_nodes: OLD drops a relation to a node outside the results.
const PINNED = '2026.8.31';
const OLD = '2025.11.25';
const OLD_COLUMN = `server-memory@${OLD}`;
const NEIGHBOURS = 'search-shows-neighbour-relation';

/** Two scenarios: one the versions pass alike, one only the newer passes. */
function scenarios(t: { after: (fn: () => void) => void }): string {
  const dir = tempDir(t, 'memeval-versions-');
  writeJson(join(dir, 'dark-once.json5'), scenario('dark-once'));
  writeJson(
    join(dir, `${NEIGHBOURS}.json5`),
    scenario(NEIGHBOURS, {
      deterministic: {
        well_behaved: [
          { op: 'remember', content: 'User prefers dark mode', subject: 'user' },
          {
            op: 'tool',
            tool: 'create_entities',
            args: { entities: [{ name: 'editor', entityType: 'tool', observations: [] }] },
          },
          {
            op: 'tool',
            tool: 'create_relations',
            args: { relations: [{ from: 'user', to: 'editor', relationType: 'configures' }] },
          },
          { op: 'recall', query: 'dark mode' },
        ],
        violation: null,
      },
      assertions: [
        { kind: 'count', name: 'dark mode once', phase: 'both', contains: 'dark mode', op: 'eq', value: 1 },
        {
          kind: 'sql',
          name: 'search shows the relation to a node outside the results',
          phase: 'well-behaved',
          query: "SELECT count(*) FROM calls WHERE tool = 'search_nodes' AND result_text LIKE '%configures%'",
          op: 'eq',
          value: 1,
        },
      ],
    }),
  );
  return dir;
}

/** The CLI (it prints the versions' columns), installing the older version into the cache. */
const cli = (dir: string, targets: string[]) =>
  ({ mode: 'cli', scenarios: dir, targets, config: { install: true } }) as const;

test(
  'two versions of one target in one run: both columns, each cell with its version, what changed between them, diff across runs',
  { timeout: timeLimit(600_000) },
  async (t) => {
    const dir = scenarios(t);
    const both = await runInline(t, cli(dir, ['server-memory', OLD_COLUMN]));
    // the older version fails the neighbour scenario: the run fails on it
    assert.equal(both.exitCode, 1, both.output);
    const { report } = both;
    const runDir = both.runDir!;
    assert.deepEqual(
      report.targets.map((x) => [x.name, x.version, x.pinned, x.requested]),
      [
        ['server-memory', PINNED, undefined, undefined],
        [OLD_COLUMN, OLD, PINNED, OLD],
      ],
    );
    for (const c of report.results) {
      assert.equal(c.target_version, c.target === 'server-memory' ? PINNED : OLD, c.cell_id);
      assert.ok(c.cell_id.startsWith(`${c.scenario}/${c.target}/`), c.cell_id);
    }
    assert.ok(existsSync(join(runDir, 'cells', NEIGHBOURS, OLD_COLUMN, 'well-behaved', 'calls.jsonl')));
    assert.equal(report.results.find((c) => c.cell_id === `${NEIGHBOURS}/${OLD_COLUMN}/well-behaved`)?.verdict, 'fail');
    assert.equal(report.results.find((c) => c.cell_id === `${NEIGHBOURS}/server-memory/well-behaved`)?.verdict, 'pass');
    // the matrix: both columns side by side with their versions, and the upgrade's changes
    assert.deepEqual(report.matrix.targets, ['server-memory', OLD_COLUMN]);
    assert.deepEqual(report.matrix.versions, { 'server-memory': PINNED, [OLD_COLUMN]: OLD });
    const [change] = report.matrix.version_changes ?? [];
    assert.deepEqual(
      [change.from, change.to],
      [
        { column: OLD_COLUMN, version: OLD },
        { column: 'server-memory', version: PINNED },
      ],
    );
    assert.deepEqual(
      change.fixed.map((c) => [c.cell_id, c.before, c.after]),
      [[`${NEIGHBOURS}/server-memory/well-behaved`, 'fail', 'pass']],
    );
    assert.equal(change.regressed.length, 0);
    assert.ok(change.unchanged >= 2, JSON.stringify(change));
    const out = both.stdout;
    assert.match(out, new RegExp(`server-memory +${OLD_COLUMN.replace('.', '\\.')}`));
    assert.match(out, new RegExp(`version ${PINNED} +version ${OLD}`));
    assert.match(
      out,
      new RegExp(
        `server-memory ${OLD} \\(${OLD_COLUMN}\\) -> ${PINNED} \\(server-memory\\): 0 regressed, 0 failing differently, 1 fixed`,
      ),
    );

    // the HTML report: each column's version under its name, and what the upgrade changed
    const chromiumPath = findChromium();
    assert.ok(chromiumPath, 'no Chromium: see test/cli/view-browser.test.ts');
    const view = await memeval(['view', runDir]);
    assert.equal(view.exitCode, 0, view.stderr);
    const ctx = await chromium.launchPersistentContext(tempDir(t, 'memeval-chromium-'), {
      executablePath: chromiumPath,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
    t.after(() => ctx.close());
    const tab = ctx.pages()[0] ?? (await ctx.newPage());
    await tab.goto(pathToFileURL(String(view.stdout).trim()).href, { waitUntil: 'load' });
    await tab.locator('pre.version-changes').waitFor();
    assert.match(await tab.locator(`th[data-target="${OLD_COLUMN}"]`).innerText(), new RegExp(`version ${OLD}`));
    assert.match(await tab.locator('th[data-target="server-memory"]').innerText(), new RegExp(`version ${PINNED}`));
    assert.match(
      await tab.locator('pre.version-changes').innerText(),
      new RegExp(`fixed ${NEIGHBOURS}/server-memory/well-behaved: fail \u2192 pass`),
    );
    await ctx.close();

    // diff of the two columns of that run: older to newer fixed it, newer to older regressed it
    const up = await memeval(['diff', runDir, '--columns', `${OLD_COLUMN},server-memory`]);
    assert.equal(up.exitCode, 0, up.stdout + up.stderr);
    assert.match(up.stdout, new RegExp(`server-memory: ${OLD} -> ${PINNED}`));
    assert.match(
      up.stdout,
      new RegExp(
        `fixed:\\n  ${NEIGHBOURS}/server-memory/well-behaved \\(against ${NEIGHBOURS}/server-memory@2025\\.11\\.25/well-behaved\\): fail -> pass`,
      ),
    );
    const down = await memeval(['diff', runDir, '--columns', `server-memory,${OLD_COLUMN}`]);
    assert.equal(down.exitCode, 1, down.stdout + down.stderr);
    assert.match(
      down.stdout,
      new RegExp(
        `regressed:\\n  ${NEIGHBOURS}/${OLD_COLUMN}/well-behaved \\(against ${NEIGHBOURS}/server-memory/well-behaved\\): pass -> fail`,
      ),
    );

    // a run of the older version alone, against the pinned column of the two-version run
    const single = await runInline(t, cli(dir, [OLD_COLUMN]));
    assert.deepEqual(single.report.matrix.targets, [OLD_COLUMN]);
    const plain = await memeval(['diff', single.runDir!, runDir]);
    assert.match(
      plain.stdout,
      new RegExp(`compare them with --columns ${OLD_COLUMN.replace('.', '\\.')},server-memory`),
    );
    const across = await memeval(['diff', single.runDir!, runDir, '--columns', `${OLD_COLUMN},server-memory`]);
    assert.equal(across.exitCode, 0, across.stdout + across.stderr);
    assert.match(across.stdout, /1 fixed/);
    assert.match(across.stdout, new RegExp(`server-memory: ${OLD} -> ${PINNED}`));
    // the same column in both runs: matched by cell id, same version, nothing changed
    const same = await memeval(['diff', single.runDir!, runDir, '--json']);
    assert.equal(
      JSON.parse(same.stdout).unchanged + JSON.parse(same.stdout).not_checked.length >= 3,
      true,
      same.stdout,
    );

    // the gate: a failure a baseline recorded for another version is not known
    const other = structuredClone(report);
    for (const c of other.results) if (c.target === OLD_COLUMN) c.target_version = '2025.9.25';
    const g = gate(report, { baseline: other });
    assert.equal(g.known.length, 0, JSON.stringify(g.known));
    assert.match(g.regressions[0].why ?? '', /another version is not known/);
    assert.equal(gate(report, { baseline: report }).known.length, 1);
    // nor is the baseline's failure of the older column the pinned column's
    const pinnedFails = structuredClone(report);
    const olds = pinnedFails.results.find((c) => c.cell_id === `${NEIGHBOURS}/${OLD_COLUMN}/well-behaved`)!;
    const pinnedCell = pinnedFails.results.find((c) => c.cell_id === `${NEIGHBOURS}/server-memory/well-behaved`)!;
    Object.assign(pinnedCell, { verdict: olds.verdict, fails_run: true, assertions: olds.assertions });
    const g2 = gate(pinnedFails, { baseline: report });
    const pinnedRegression = g2.regressions.find((c) => c.cell_id === pinnedCell.cell_id);
    // the pinned column passed in the baseline: its failure now is a regression, whatever the older column did
    assert.ok(pinnedRegression, JSON.stringify(g2.regressions));
    assert.ok(!g2.known.some((c) => c.cell_id === pinnedCell.cell_id), JSON.stringify(g2.known));
  },
);

test(
  'bad --target name@version input exits 3 naming the flag and the fix, before anything runs',
  { timeout: timeLimit(120_000) },
  async (t) => {
    const local = join('eval', 'hostile', 'hostile-echo.json5');
    const cases: [string, RegExp][] = [
      [
        'server-memory@9.9.9',
        /--target server-memory@9\.9\.9: @modelcontextprotocol\/server-memory has no version "9\.9\.9" on npm.*server-memory@2026\.8\.31/,
      ],
      [
        'server-memory@',
        /--target server-memory@: no version after "@"; give an exact version, e\.g\. server-memory@2026\.8\.31/,
      ],
      ['no-such-target@1.0.0', /--target: unknown target "no-such-target"/],
      [
        `${local}@1.0.0`,
        /runs server\.command and declares no npm package, so it has no other version to run; drop "@1\.0\.0"/,
      ],
      [
        `server-memory,server-memory@${PINNED}`,
        /server-memory@2026\.8\.31 and server-memory are both server-memory; give each target and version once/,
      ],
    ];
    for (const [target, message] of cases) {
      const r = await runInline(t, { targets: target.split(',') });
      assert.equal(r.exitCode, 3, `${target}: ${r.output}`);
      assert.match(r.output, message, target);
      assert.deepEqual(existsSync(r.out) ? readdirSync(r.out) : [], [], `${target}: nothing runs`);
    }
  },
);
