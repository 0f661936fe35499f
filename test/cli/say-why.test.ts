/**
 * Issue 31, "say why, not only what": every cell carries its scenario's title, description and
 * what it guards, in report.json, the console recap, Markdown, JUnit and report.html; the page
 * opens at its top; a caught violation reads "caught" in chip, filter and cell alike.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { freshRun, memeval, mixedScenarios } from '../helpers.ts';
import { openBrowser } from '../view-shots.ts';
import { scenario, tempDir, timeLimit, writeJson } from '../kit.ts';

const TITLE = 'Dark mode is remembered twice';
const DESCRIPTION = 'A server that drops the second write of the same preference loses what the user said.';

test(
  'the scenario title, description and guards stand beside every cell in every report',
  { timeout: timeLimit(300_000) },
  async (t) => {
    const dir = mixedScenarios(t);
    const bad = JSON.parse(readFileSync(join(dir, 'bad-one.json5'), 'utf8')) as Record<string, unknown>;
    writeJson(join(dir, 'bad-one.json5'), {
      ...bad,
      title: TITLE,
      description: DESCRIPTION,
      deterministic: {
        ...(bad.deterministic as object),
        violation: { ...(scenario('x').deterministic as { violation: object }).violation, defence: 'secret-redaction' },
      },
    });
    const run = await freshRun(t, ['good-one', 'bad-one'], ['--scenarios', dir, '--reporter', 'junit,markdown']);
    assert.equal(run.exitCode, 1, run.stderr);

    // report.json: every cell, passing or not
    const report = JSON.parse(readFileSync(run.reportPath, 'utf8')) as {
      results: {
        cell_id: string;
        scenario: string;
        about?: { title: string; description: string; defence?: string; tags: string[] };
      }[];
    };
    for (const r of report.results) assert.ok(r.about, `${r.cell_id} has no about`);
    const cell = report.results.find((r) => r.cell_id === 'bad-one/server-memory/well-behaved')!;
    assert.deepEqual(cell.about, {
      title: TITLE,
      description: DESCRIPTION,
      defence: 'secret-redaction',
      tags: ['dark'],
    });

    // the console recap under the failing cell
    const recap = run.stdout.slice(run.stdout.indexOf('fail the run:'));
    assert.match(
      recap,
      new RegExp(`bad-one.*\\n\\s+why: ${TITLE}: ${DESCRIPTION} \\(guards: the secret-redaction defence; tags dark\\)`),
    );

    // Markdown and JUnit
    const md = readFileSync(join(run.runDir, 'summary.md'), 'utf8');
    assert.match(
      md,
      /bad-one\/server-memory\/well-behaved.*\n\s+- why: Dark mode is remembered twice: A server that drops/,
    );
    const junit = readFileSync(join(run.runDir, 'junit.xml'), 'utf8');
    assert.match(junit, /<failure[^>]*>[^<]*why: Dark mode is remembered twice: A server that drops/);

    // the page: opens at the top, says why beside the cell, one word for a caught violation
    const v = await memeval(['view', run.runDir]);
    assert.equal(v.exitCode, 0, v.stderr);
    const page = join(run.runDir, 'report.html');
    const b = await openBrowser(t);
    const shots = tempDir(t, 'memeval-shots-');
    for (const width of [1280, 1920]) {
      await b.tab.setViewportSize({ width, height: 700 });
      await b.tab.goto(pathToFileURL(page).href, { waitUntil: 'load' });
      await b.tab.locator('#detail h2').filter({ hasText: 'bad-one/server-memory/well-behaved' }).waitFor();
      await b.tab.screenshot({ path: join(shots, `say-why-${width}.png`) });
      assert.equal(await b.tab.evaluate(() => window.scrollY), 0, `${width}px: the page opens at its top`);
      assert.ok(await b.tab.locator('#title').isVisible());
      // the failing assertion is still marked, one click (the chip, or the selected cell) away
      assert.equal(await b.tab.locator('#detail .assertion.failing[data-focus="true"]').count(), 1);
      assert.match(
        await b.tab.locator('#detail .about').innerText(),
        new RegExp(`${TITLE}\\s+${DESCRIPTION}\\s+guards: the secret-redaction defence; tags dark`),
      );
      assert.match(await b.tab.locator('tr[data-scenario="bad-one"] td.scenario').innerText(), new RegExp(TITLE));
      // caught, never also detected: chips, the verdict filter and the cells use one word
      const chips = await b.tab.locator('#chips button.chip').allInnerTexts();
      assert.ok(
        chips.some((c) => /^caught/.test(c)),
        chips.join(' | '),
      );
      assert.ok(!chips.some((c) => /detected/.test(c)), chips.join(' | '));
      const options = await b.tab.locator('#filter-verdict option').allInnerTexts();
      assert.ok(options.includes('caught') && !options.includes('detected'), options.join(', '));
      assert.equal(await b.tab.locator('button.cell.caught').count(), 2);
      for (const text of await b.tab.locator('button.cell.caught').allInnerTexts()) assert.match(text, /caught/);
    }
    assert.deepEqual(b.problems, []);
  },
);
