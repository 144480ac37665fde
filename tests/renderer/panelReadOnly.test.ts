// A runtime with no config file to edit (a bridge started on inline JSON; here the stand-in,
// which answers GET /config like one): the panel stays the read-only status panel, with no
// management bar, no switches, no notice and no console error, and asks for nothing else.
import { afterEach, describe, expect, it } from 'vitest';
import { panelForFile, type PanelPage } from '../helpers/panelBrowser.js';
import { startStatusHttpHarness, type StatusHttpHarness } from '../helpers/statusHttpHarness.js';
import { realisticStatus } from '../helpers/sampleStatus.js';

const panel = panelForFile();
let harness: StatusHttpHarness | undefined;
let current: PanelPage | undefined;

afterEach(async () => {
  const errors = current?.errors ?? [];
  await current?.context.close();
  await harness?.close();
  current = undefined;
  harness = undefined;
  expect(errors).toEqual([]);
});

describe('read-only runtime', () => {
  it('shows no management controls and no notice when the config is not editable', async () => {
    harness = await startStatusHttpHarness({ staticDir: panel.dir, status: realisticStatus() });
    current = await panel.newPage();
    const { page } = current;
    await page.goto(harness.pageUrl);
    await page.locator('li.server').first().waitFor();
    await expect.poll(() => harness!.requests.some((r) => r.path === '/config')).toBe(true);
    expect(await page.getByRole('button', { name: 'Add server' }).isVisible()).toBe(false);
    expect(await page.getByRole('button', { name: 'Paste a snippet' }).isVisible()).toBe(false);
    expect(await page.getByRole('switch').count()).toBe(0);
    expect(await page.locator('.manage-notice').isVisible()).toBe(false);
    expect(await page.getByRole('button', { name: 'Edit' }).count()).toBe(0);
    expect(
      harness.requests.filter((r) => r.path === '/config').every((r) => r.authorization?.startsWith('Bearer ')),
    ).toBe(true);
  });
});
