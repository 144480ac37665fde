/**
 * Real Chromium for the status-panel tests: one browser per test file, the panel built
 * into a temp dir, console errors (CSP violations included) collected per page, and a
 * check at close that every Chromium process of this browser is gone.
 */
import { afterAll, beforeAll } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildRenderer } from '../../scripts/buildRenderer.mjs';
import { chromiumPath } from './chromiumPath.js';
import { scaled } from './loadScale.js';

/** Builds the panel into a fresh temp dir; `remove()` deletes it. */
export async function buildPanelToTemp(): Promise<{ dir: string; remove(): void }> {
  const dir = mkdtempSync(join(tmpdir(), 'panel-'));
  await buildRenderer({ outDir: dir });
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A page plus what it logged. */
export interface PanelPage {
  page: Page;
  context: BrowserContext;
  /** Console errors and uncaught exceptions, in order. */
  errors: string[];
}

export interface PanelBrowser {
  browser: Browser;
  /** A fresh context (own sessionStorage) and page. */
  newPage(options?: {
    viewport?: { width: number; height: number };
    colorScheme?: 'light' | 'dark';
  }): Promise<PanelPage>;
  /** Closes the browser and waits (bounded) until none of its processes is left; throws otherwise. */
  close(): Promise<void>;
}

/** Direct and indirect children of `root` (Linux /proc). */
function descendants(root: number): number[] {
  const parent = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // Field 4 (ppid) follows the parenthesised command name, which may contain spaces.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parent.set(Number(name), ppid);
    } catch {
      // the process exited while we looked
    }
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const [pid, pp] of parent)
      if (pp === p) {
        out.push(pid);
        walk(pid);
      }
  };
  walk(root);
  return out;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw err;
  }
}

/** Chromium processes (by executable) started by this test process. */
function chromiumPids(): number[] {
  return descendants(process.pid).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('chromium');
    } catch {
      return false;
    }
  });
}

/** Launches headless Chromium the way every panel test does. */
export async function launchPanelBrowser(): Promise<PanelBrowser> {
  const before = new Set(chromiumPids());
  const browser = await chromium.launch({
    executablePath: await chromiumPath(),
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    timeout: 30_000,
  });
  const seen = new Set<number>();
  const remember = () => {
    for (const pid of chromiumPids()) if (!before.has(pid)) seen.add(pid);
  };
  remember();
  return {
    browser,
    async newPage(options = {}) {
      const context = await browser.newContext({
        viewport: options.viewport ?? { width: 1200, height: 800 },
        colorScheme: options.colorScheme ?? 'light',
      });
      const page = await context.newPage();
      page.setDefaultTimeout(scaled(10_000));
      const errors: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error') errors.push(m.text());
      });
      page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
      remember();
      return { page, context, errors };
    },
    async close() {
      remember();
      // Without pids this check could not fail; finding none means the lookup is broken.
      if (seen.size === 0) throw new Error('no Chromium process found under this test process');
      await browser.close();
      const deadline = Date.now() + 10_000;
      let left = [...seen].filter(alive);
      while (left.length && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
        left = left.filter(alive);
      }
      if (left.length) throw new Error(`Chromium processes still alive after close: ${left.join(', ')}`);
    },
  };
}

/** Console errors that are not about the network (refused connections are expected when the bridge is down). */
export function nonNetworkErrors(errors: string[]): string[] {
  return errors.filter((e) => !/Failed to load resource|net::ERR_/.test(e));
}

/**
 * For a test file: the panel built once into a temp dir and one Chromium, both set up before
 * the file's tests and removed after them (the browser checked gone).
 */
export function panelForFile(): { readonly dir: string; newPage: PanelBrowser['newPage'] } {
  let built: { dir: string; remove(): void } | undefined;
  let chrome: PanelBrowser | undefined;
  beforeAll(async () => {
    built = await buildPanelToTemp();
    chrome = await launchPanelBrowser();
  });
  afterAll(async () => {
    await chrome?.close();
    built?.remove();
  });
  return {
    get dir() {
      return built!.dir;
    },
    newPage: (options) => chrome!.newPage(options),
  };
}
