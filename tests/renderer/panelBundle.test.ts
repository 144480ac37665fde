// The panel page's scripts as built (scripts/buildRenderer.mjs): panel.js carries no MCP Apps
// view host (ext-apps and its SDK are in mcp-app.js, loaded at the first "Open app") and stays
// within its byte budget (docs/BENCHMARKS.md, "The panel's scripts").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { buildPanelToTemp } from '../helpers/panelBrowser.js';

/** panel.js at most (bytes, unminified). */
const PANEL_BUDGET = 200 * 1024;
let built: { dir: string; remove(): void };

beforeAll(async () => {
  built = await buildPanelToTemp();
}, 60_000);
afterAll(() => built?.remove());

describe("the panel page's scripts", () => {
  it('keeps the view host out of panel.js, in mcp-app.js', () => {
    const panel = readFileSync(join(built.dir, 'panel.js'), 'utf8');
    const host = readFileSync(join(built.dir, 'mcp-app.js'), 'utf8');
    // ext-apps' host side, by a method name of its AppBridge.
    expect(host).toContain('sendSandboxResourceReady');
    expect(panel).not.toContain('sendSandboxResourceReady');
    expect(panel).toContain('mcp-app.js');
    expect(statSync(join(built.dir, 'panel.js')).size).toBeLessThanOrEqual(PANEL_BUDGET);
  });
});
