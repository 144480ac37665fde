/**
 * Where `mountMcpApp` comes from when a page opens a view: MCP Apps' host side (ext-apps and
 * its SDK) is most of the panel's weight, so the built panel page (panel.js) does not carry it
 * and loads its own file `mcp-app.js` (mcpAppBundle.ts, built beside panel.js) at the first
 * "Open app", by a script tag from the folder panel.js came from (the page's CSP: 'self'). A
 * page that bundles the package's `panel` entry has `mountMcpApp` already: that entry sets the
 * loader to it (setMcpAppLoader).
 */
import type { mountMcpApp } from './mountMcpApp.js';

export type MountMcpApp = typeof mountMcpApp;

/** The built file with `mountMcpApp`, beside panel.js (scripts/buildRenderer.mjs). */
export const MCP_APP_SCRIPT = 'mcp-app.js';
/** The global that file sets, read once it loaded. */
export const MCP_APP_GLOBAL = '__qimingMcpApp';

type WithMcpApp = Record<string, { mountMcpApp?: MountMcpApp } | undefined>;

/** The script this module is part of (panel.js), while it runs its first time; null in a module bundle. */
const panelScript = typeof document !== 'undefined' ? (document.currentScript as HTMLScriptElement | null) : null;
let loading: Promise<MountMcpApp> | undefined;

/** `mountMcpApp` from `mcp-app.js` beside the panel's script, loaded once. */
function fromScript(): Promise<MountMcpApp> {
  loading ??= new Promise<MountMcpApp>((resolve, reject) => {
    const w = window as unknown as WithMcpApp;
    const have = () => w[MCP_APP_GLOBAL]?.mountMcpApp;
    const ready = have();
    if (ready) return resolve(ready);
    const s = document.createElement('script');
    s.src = new URL(MCP_APP_SCRIPT, panelScript?.src || document.baseURI).href;
    s.addEventListener('load', () => {
      const mount = have();
      if (mount) resolve(mount);
      else reject(new Error(`${MCP_APP_SCRIPT} did not provide the view host`));
    });
    s.addEventListener('error', () => reject(new Error(`${MCP_APP_SCRIPT} could not be loaded`)));
    document.head.append(s);
  }).catch((err: unknown) => {
    loading = undefined; // a later "Open app" tries again
    throw err;
  });
  return loading;
}

let loader: () => Promise<MountMcpApp> = fromScript;

/** `mountMcpApp`, loaded on first use. */
export function loadMountMcpApp(): Promise<MountMcpApp> {
  return loader();
}

/** Replaces where `mountMcpApp` comes from (the package's `panel` entry: the one it exports). */
export function setMcpAppLoader(load: () => Promise<MountMcpApp>): void {
  loader = load;
}
