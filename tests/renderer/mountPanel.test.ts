// mountPanel() of the package's `qiming-mcp-runtime/panel` entry (the built dist/index/panel.js)
// in real Chromium, inside a page of "the app's own" with the preload API as a preload would
// expose it (window.mcpRuntime): the panel renders into the given element only, follows
// status pushes, sends restarts through the API, and stops when asked.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from 'esbuild';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { launchPanelBrowser, type PanelBrowser } from '../helpers/panelBrowser.js';
import { runtime, server } from '../helpers/sampleStatus.js';
import { ROOT } from '../helpers/paths.js';

let dir: string;
let chrome: PanelBrowser;

const APP_SCRIPT = `
import { mountPanel } from ${JSON.stringify(join(ROOT, 'dist', 'index', 'panel.js'))};
const listeners = new Set();
window.restarts = [];
window.pushStatus = (s) => listeners.forEach((cb) => cb(s));
// What exposeMcpRuntime() puts there in the app's preload.
window.mcpRuntime = {
  getStatus: async () => window.initialStatus,
  onStatus: (cb) => (listeners.add(cb), () => listeners.delete(cb)),
  restart: async (id) => (window.restarts.push(id), { ok: true }),
};
window.stopPanel = mountPanel(document.getElementById('mcp'));
`;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'qiming-mount-'));
  writeFileSync(join(dir, 'entry.js'), APP_SCRIPT);
  // As the app's bundler would: one classic script for its page.
  await build({
    entryPoints: [join(dir, 'entry.js')],
    outfile: join(dir, 'app.js'),
    bundle: true,
    format: 'iife',
    platform: 'browser',
    logLevel: 'silent',
  });
  copyFileSync(join(ROOT, 'dist', 'renderer', 'panel.css'), join(dir, 'panel.css'));
  writeFileSync(
    join(dir, 'app.html'),
    `<!doctype html><html><head><meta charset="utf-8"><link rel="stylesheet" href="panel.css"><script src="init.js"></script><script src="app.js" defer></script></head>
<body><h1 id="own">The app's own page</h1><section id="mcp"></section></body></html>`,
  );
  writeFileSync(
    join(dir, 'init.js'),
    `window.initialStatus = ${JSON.stringify(runtime([server('memory'), server('files', { state: 'failed' })]))};`,
  );
  chrome = await launchPanelBrowser();
}, 60_000);

afterAll(async () => {
  await chrome?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('mountPanel from the panel entry', () => {
  it("renders into the app's element, follows pushes, restarts through the preload API, and stops", async () => {
    const { page, context, errors } = await chrome.newPage();
    try {
      await page.goto(pathToFileURL(join(dir, 'app.html')).href);
      await page.locator('#mcp li.server').first().waitFor();
      const ids = () =>
        page.locator('#mcp li.server').evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.serverId));
      expect(await ids()).toEqual(['memory', 'files']);
      expect(await page.locator('#own').textContent()).toBe("The app's own page");

      await page.evaluate(
        (s) => (window as any).pushStatus(s),
        runtime([server('memory'), server('files'), server('extra')]),
      );
      await page.locator('#mcp li.server[data-server-id="extra"]').waitFor();

      await page
        .locator('#mcp li.server[data-server-id="memory"]')
        .getByRole('button', { name: 'Restart memory' })
        .click();
      await page.waitForFunction(() => (window as any).restarts.length > 0);
      expect(await page.evaluate(() => (window as any).restarts)).toEqual(['memory']);

      await page.evaluate(() => (window as any).stopPanel());
      await page.evaluate((s) => (window as any).pushStatus(s), runtime([server('after-stop')]));
      expect(await ids()).toEqual(['memory', 'files', 'extra']);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
