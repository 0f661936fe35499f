// Opening report pages in real Chromium: screenshots at the widths people use, and the check that
// every failing cell can be seen. Shared by the browser test (test/cli) and the agents' (test/agents).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { findChromium } from './setup/chromium.ts';
import { ROOT } from './helpers.js';

export const CHROMIUM = findChromium();
/** Chromium's flags for a headless page that reaches nothing beyond the file it opens. */
export const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
/** Screenshots land here (gitignored), so CI can keep them as artefacts. */
export const SHOTS = join(ROOT, 'test-output', 'view');
export const WIDTHS = [1280, 1920] as const;

export interface Browser {
  ctx: BrowserContext;
  tab: Page;
  /** console errors, page errors and requests that left the file */
  problems: string[];
}

export async function openBrowser(t: { after: (fn: () => unknown) => void }): Promise<Browser> {
  assert.ok(
    CHROMIUM,
    "no Chromium: `npm test` installs Debian's chromium as root, else run `sudo apt-get install chromium` or set CHROMIUM_PATH",
  );
  // the profile goes after the browser is closed (Chromium writes into it until then)
  const profile = mkdtempSync(join(tmpdir(), 'memeval-chromium-'));
  const ctx = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
  });
  t.after(async () => {
    await ctx.close();
    rmSync(profile, { recursive: true, force: true });
  });
  const tab = ctx.pages()[0] ?? (await ctx.newPage());
  const problems: string[] = [];
  tab.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`);
  });
  tab.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  tab.on('request', (r) => {
    if (!r.url().startsWith('file:') && !r.url().startsWith('data:')) problems.push(`request: ${r.url()}`);
  });
  return { ctx, tab, problems };
}

/**
 * Each cell that fails the run, scrolled into view, lies inside the viewport and is what the
 * browser hits at its centre (not the detail pane, the sticky scenario column or anything else).
 * Returns how many were checked.
 */
export async function assertFailingCellsVisible(tab: Page, what: string): Promise<number> {
  const { width, height } = tab.viewportSize()!;
  const ids = await tab
    .locator('#matrix button.cell[data-counts="true"]')
    .evaluateAll((els) => els.map((e) => e.getAttribute('data-cell-id')!));
  for (const id of ids) {
    const cell = tab.locator(`#matrix button.cell[data-cell-id="${id}"]`);
    await cell.scrollIntoViewIfNeeded();
    const box = await cell.boundingBox();
    assert.ok(box, `${what} ${width}px: ${id} has no box (hidden?)`);
    assert.ok(
      box.x >= 0 && box.y >= 0 && box.x + box.width <= width && box.y + box.height <= height,
      `${what} ${width}px: ${id} is outside the ${width}x${height} viewport: ${JSON.stringify(box)}`,
    );
    const hit = await tab.evaluate(
      ([x, y]) => {
        const el = document.elementFromPoint(x, y);
        return el?.closest('button.cell')?.getAttribute('data-cell-id') ?? el?.outerHTML.slice(0, 120) ?? null;
      },
      [box.x + box.width / 2, box.y + box.height / 2],
    );
    assert.equal(hit, id, `${what} ${width}px: ${id} is covered by ${hit}`);
  }
  return ids.length;
}

/** Open `page` at each width: screenshot `<SHOTS>/<name>-<width>.png`, then `check` (e.g. assertFailingCellsVisible). */
export async function shootAtWidths(
  b: Browser,
  page: string,
  name: string,
  check: (tab: Page, width: number) => Promise<void> = async () => {},
): Promise<string[]> {
  mkdirSync(SHOTS, { recursive: true });
  const files: string[] = [];
  for (const width of WIDTHS) {
    await b.tab.setViewportSize({ width, height: 1000 });
    await b.tab.goto(pathToFileURL(page).href, { waitUntil: 'load' });
    await b.tab.locator('#title').filter({ hasText: /\d/ }).waitFor();
    const file = join(SHOTS, `${name}-${width}.png`);
    await b.tab.screenshot({ path: file });
    files.push(file);
    await check(b.tab, width);
  }
  return files;
}
