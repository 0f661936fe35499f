import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { ARGS, CHROMIUM, SHOTS } from '../view-shots.ts';
import { faultyTargetWithout, scenarioDir } from '../faulty.js';
import { freshRun, memeval, mixedScenarios, tempDir, timeLimit } from '../helpers.js';

const OUTPUT = SHOTS;

test(
  'memeval view: the page works from file:// in real Chromium, and a failing cell opens to its failing assertion',
  { timeout: timeLimit(240_000) },
  async (t) => {
    assert.ok(
      CHROMIUM,
      "no Chromium: `npm test` installs Debian's chromium as root, else run `sudo apt-get install chromium` or set CHROMIUM_PATH",
    );
    const run = await freshRun(t, ['good-one', 'bad-one'], ['--scenarios', mixedScenarios(t)]);
    const v = await memeval(['view', run.runDir]);
    assert.equal(v.exitCode, 0, v.stderr);
    const page = join(run.runDir, 'report.html');
    assert.equal(String(v.stdout).trim(), page);
    const html = readFileSync(page, 'utf8');
    assert.doesNotMatch(html, /<(script|link|img)[^>]+(src|href)=/i, 'nothing is loaded from outside the file');

    const profile = tempDir(t, 'memeval-chromium-');
    const ctx = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: ARGS,
    });
    t.after(() => ctx.close());
    const tab = ctx.pages()[0] ?? (await ctx.newPage());
    const problems: string[] = [];
    const requests: string[] = [];
    tab.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`);
    });
    tab.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    tab.on('request', (r) => requests.push(r.url()));
    await tab.setViewportSize({ width: 1400, height: 900 });
    await tab.goto(pathToFileURL(page).href, { waitUntil: 'load' });

    await tab.locator('#title').filter({ hasText: '3 passed, 1 failed' }).waitFor();
    // 2 scenarios × 1 target × 2 phases
    assert.equal(await tab.locator('button.cell').count(), 4);
    assert.equal(await tab.locator('button.cell.fails').count(), 1);
    assert.equal(await tab.locator('button.cell.caught').count(), 2, 'both violation cells show as caught');

    // filters: only cells that fail the run
    await tab.locator('#filter-failing').check();
    assert.equal(await tab.locator('button.cell:visible').count(), 1);
    await tab.locator('#filter-failing').uncheck();
    await tab.locator('#filter-verdict').selectOption('caught');
    assert.equal(await tab.locator('button.cell:visible').count(), 2);
    await tab.locator('#filter-verdict').selectOption('');

    // open the passing cell, then the failing one: the detail shows its failing assertion
    await tab.locator('button[data-cell-id="good-one/server-memory/well-behaved"]').click();
    assert.equal(await tab.locator('#detail .assertion.failing').count(), 0);
    await tab.locator('button[data-cell-id="bad-one/server-memory/well-behaved"]').click();
    await tab.locator('#detail h2').filter({ hasText: 'bad-one/server-memory/well-behaved' }).waitFor();
    const failing = tab.locator('#detail .assertion.failing');
    assert.equal(await failing.count(), 1);
    await failing.waitFor({ state: 'visible' });
    const text = await failing.innerText();
    assert.match(text, /dark mode twice/);
    assert.match(text, /actual\s+1/);
    assert.match(text, /expected\s+= 2/);
    assert.equal(await failing.getAttribute('data-focus'), 'true');
    // the calls log and the evidence paths of that cell
    assert.ok((await tab.locator('#detail table.calls tr').count()) > 1, 'calls log rows');
    assert.match(
      await tab.locator('#detail ul.evidence').innerText(),
      /bad-one\/server-memory\/well-behaved\/evidence\.db/,
    );

    // a caught violation: the absent assertion shows where it found the text
    await tab.locator('button[data-cell-id="good-one/server-memory/violation"]').click();
    const absent = await tab.locator('#detail .assertion.caught').filter({ hasText: 'no token' }).innerText();
    assert.match(absent, /sk_test_abcdef123456/);
    assert.match(absent, /found in memories\.content/);
    await tab.locator('button[data-cell-id="bad-one/server-memory/well-behaved"]').click();

    mkdirSync(OUTPUT, { recursive: true });
    const shot = join(OUTPUT, 'failing-cell.png');
    await tab.screenshot({ path: shot, fullPage: true });
    console.log(`screenshot: ${shot}`);

    assert.deepEqual(problems, []);
    assert.deepEqual(
      requests.filter((u) => !u.startsWith('file:') && !u.startsWith('data:')),
      [],
      'no request leaves the file',
    );
  },
);

test(
  'memeval view: unsupported cells are counted apart in the title and the totals, and a run that checked nothing says so',
  { timeout: timeLimit(240_000) },
  async (t) => {
    assert.ok(
      CHROMIUM,
      "no Chromium: `npm test` installs Debian's chromium as root, else run `sudo apt-get install chromium` or set CHROMIUM_PATH",
    );
    const dir = tempDir(t);
    const target = faultyTargetWithout(dir, 'no-remember', ['remember']);
    const out = join(dir, 'runs');
    const r = await memeval(['run', '--scenarios', scenarioDir(dir, 2), '--target', target, '--out', out]);
    assert.equal(r.exitCode, 1, String(r.stdout) + r.stderr);
    const runDir = join(out, readdirSync(out)[0]);
    const v = await memeval(['view', runDir]);
    assert.equal(v.exitCode, 0, v.stderr);
    const ctx = await chromium.launchPersistentContext(tempDir(t, 'memeval-chromium-'), {
      executablePath: CHROMIUM,
      headless: true,
      args: ARGS,
    });
    t.after(() => ctx.close());
    const tab = ctx.pages()[0] ?? (await ctx.newPage());
    const problems: string[] = [];
    tab.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    await tab.goto(pathToFileURL(join(runDir, 'report.html')).href, { waitUntil: 'load' });
    await tab.locator('#title').filter({ hasText: '0 passed, 0 failed, 4 unsupported (4 cells)' }).waitFor();
    assert.match(
      await tab.locator('#title').innerText(),
      /✗ 0 passed, 0 failed, 4 unsupported \(4 cells\) — nothing was checked/,
    );
    assert.equal(await tab.locator('tr.totals td').first().innerText(), 'passed / failed / unsupported');
    assert.equal(await tab.locator('tr.totals td[data-target="no-remember"]').innerText(), '0 / 0 / 4');
    assert.deepEqual(problems, []);
  },
);

test(
  "memeval view: an agent cell's page shows the agent's usage per prompt, '-' where the agent reported none",
  { timeout: timeLimit(240_000) },
  async (t) => {
    assert.ok(CHROMIUM, 'no Chromium: see the first test of this file');
    const run = await freshRun(t, ['good-one'], ['--scenarios', mixedScenarios(t)]);
    // the usage of a two-prompt agent run, as drive/agent.ts records it, put on a cell of a real report
    const report = JSON.parse(readFileSync(run.reportPath, 'utf8'));
    const cell = report.results.find((c: { phase: string }) => c.phase === 'well-behaved');
    const turn = (prompt: number, input: number, finish: string) => ({
      session: 1,
      prompt,
      exit_code: 0,
      ms: 1234,
      model_requests: 3,
      final_text: `answer ${prompt}`,
      tool_calls: [{ tool: 'create_entities', ok: true, logged: true }],
      memory_calls: 2,
      finish_reason: finish,
      usage: { input, output: input ? 77 : 0, cache_read: 0, cache_write: 0, cost_usd: null },
      stdout_file: 'transcripts/s1p1.stdout',
      stderr_file: 'transcripts/s1p1.stderr',
      invalid: finish === 'completed' ? [] : ['max turns hit: …'],
    });
    cell.agent = {
      agent: 'codex',
      agent_version: '0.169.0',
      model: 'scripted',
      scripted: true,
      policy: 'well-behaved',
      repeat: 1,
      memory_off: {},
      usage_estimated: true,
      turns: [turn(1, 4321, 'completed'), turn(2, 0, 'max_turns')],
      usage: { input: 4321, output: 77, cache_read: 0, cache_write: 0, cost_usd: null },
    };
    writeFileSync(run.reportPath, JSON.stringify(report));
    const v = await memeval(['view', run.runDir]);
    assert.equal(v.exitCode, 0, v.stderr);
    const ctx = await chromium.launchPersistentContext(tempDir(t, 'memeval-chromium-'), {
      executablePath: CHROMIUM,
      headless: true,
      args: ARGS,
    });
    t.after(() => ctx.close());
    const tab = ctx.pages()[0] ?? (await ctx.newPage());
    const problems: string[] = [];
    tab.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    await tab.goto(pathToFileURL(join(run.runDir, 'report.html')).href, { waitUntil: 'load' });
    await tab.locator(`button[data-cell-id="${cell.cell_id}"]`).click();
    const rows = tab.locator('#detail table.usage tr');
    await rows.first().waitFor();
    assert.equal(await rows.count(), 3, 'a header and one row per prompt');
    const cells = async (i: number) => (await rows.nth(i).locator('td').allInnerTexts()).map((s) => s.trim());
    // session, prompt, tokens in, out, cache read, cost, model requests, tool calls, memory calls, finish, ms
    assert.deepEqual(await cells(1), ['1', '1', '4321', '77', '0', '-', '3', '1', '2', 'completed', '1234']);
    assert.deepEqual(await cells(2), ['1', '2', '-', '-', '-', '-', '3', '1', '2', 'max_turns', '1234']);
    assert.match(await tab.locator('#detail').innerText(), /token counts are the scripted model.s estimates/);
    assert.deepEqual(problems, []);
  },
);
