// Renders a realistic status at 1200x800 in light and dark, checks the layout holds
// (no horizontal overflow, every card in view, readable contrast), and writes the
// screenshots to a temp dir; with UPDATE_SCREENSHOTS=1 the dark one goes to
// docs/status-panel-dark.png. The canonical light docs/status-panel.png comes from the
// real bridge (panelRealBridge.test.ts), so the stand-in never overwrites it.
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { panelForFile } from '../helpers/panelBrowser.js';
import { startStatusHttpHarness } from '../helpers/statusHttpHarness.js';
import { realisticStatus } from '../helpers/sampleStatus.js';

const update = process.env.UPDATE_SCREENSHOTS === '1';
const docsDir = join(import.meta.dirname, '..', '..', 'docs');
const outDir = mkdtempSync(join(tmpdir(), 'panel-shot-'));
const panel = panelForFile();

afterAll(() => {
  rmSync(outDir, { recursive: true, force: true });
});

/** WCAG contrast ratio of two `rgb(...)` colours. */
function contrast(a: string, b: string): number {
  const lum = (c: string) => {
    const [r, g, bl] = (c.match(/[\d.]+/g) ?? [])
      .slice(0, 3)
      .map(Number)
      .map((v) => {
        const s = v / 255;
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      });
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * bl!;
  };
  const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
}

describe('status panel screenshot', () => {
  for (const scheme of ['light', 'dark'] as const) {
    it(`looks right in ${scheme} mode`, async () => {
      // Four servers in four states, so everything fits in one 1200x800 view.
      const status = realisticStatus();
      status.servers = status.servers.filter((s) => s.state !== 'disabled');
      const harness = await startStatusHttpHarness({ staticDir: panel.dir, status });
      const { page, context, errors } = await panel.newPage({
        viewport: { width: 1200, height: 800 },
        colorScheme: scheme,
      });
      try {
        await page.goto(harness.pageUrl);
        await page.locator('li.server').nth(3).waitFor();
        await page.locator('li.server[data-server-id="memory"] details.tools summary').click();
        await page.mouse.move(0, 0);
        const layout = await page.evaluate(() => ({
          scrollWidth: document.documentElement.scrollWidth,
          cards: Array.from(document.querySelectorAll('.server-card')).map((c) => {
            const r = c.getBoundingClientRect();
            return { right: r.right, bottom: r.bottom };
          }),
        }));
        expect(layout.scrollWidth).toBeLessThanOrEqual(1200);
        expect(layout.cards.length).toBe(4);
        for (const card of layout.cards) expect(card.right <= 1200 && card.bottom <= 800).toBe(true);
        // Text on every badge and on the cards stays readable (WCAG AA for normal text).
        const pairs = await page.locator('.badge, .server-card, .last-error, .fact dt').evaluateAll((els) =>
          els.map((e) => {
            const s = getComputedStyle(e);
            let bg = s.backgroundColor;
            for (let p = e.parentElement; bg === 'rgba(0, 0, 0, 0)' && p; p = p.parentElement)
              bg = getComputedStyle(p).backgroundColor;
            return [s.color, bg] as const;
          }),
        );
        for (const [fg, bg] of pairs) expect(contrast(fg, bg)).toBeGreaterThanOrEqual(4.5);
        const file =
          scheme === 'dark' && update
            ? join(docsDir, 'status-panel-dark.png')
            : join(outDir, `status-panel-${scheme}.png`);
        await page.screenshot({ path: file });
        expect(statSync(file).size).toBeGreaterThan(10_000);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
        await harness.close();
      }
    });
  }
});
