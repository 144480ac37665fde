/**
 * Renders one MCP Apps view in an element: an iframe on another origin than the page (the
 * sandbox proxy page the view's host gives), sandboxed without `allow-top-navigation` or
 * `allow-popups`, its `allow` from the resource's `permissions`, and ext-apps' host side
 * (`AppBridge` over its `PostMessageTransport`) speaking to the view: the resource handed to
 * the sandbox, then the tool's input and result; the view's `tools/call` and
 * `resources/read` go to {@link McpAppHost}; `ui/open-link` to its `openLink`; `ui/message`
 * and `ui/update-model-context` become an `mcp-app-message` event on the element, for the app
 * to decide about (nothing reaches an agent from here).
 */
import { AppBridge, PostMessageTransport, buildAllowAttribute } from '@modelcontextprotocol/ext-apps/app-bridge';
import type { AppViewResource } from '../../shared/appView.js';

/** Where a view's requests go (the bridge, the preload): its own server only. */
export interface McpAppHost {
  callTool(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>>;
  readResource(uri: string): Promise<Record<string, unknown>>;
  /** Opens `url` in the system browser after the URL checks; false when refused. */
  openLink(url: string): Promise<boolean>;
}

/** What {@link mountMcpApp} renders. */
export interface McpAppView {
  server: string;
  tool: string;
  arguments: Record<string, unknown>;
  /** The tool's result, when the call was answered. */
  result?: Record<string, unknown>;
  resource: AppViewResource;
  /** The sandbox proxy page, on another origin than the page. */
  sandbox: string;
  host: McpAppHost;
}

/** The detail of the `mcp-app-message` event: a view's `ui/message` or `ui/update-model-context`. */
export interface McpAppMessage {
  server: string;
  tool: string;
  kind: 'message' | 'model-context';
  params: Record<string, unknown>;
}

/** The iframe's sandbox: scripts and forms on its own origin; never popups, top navigation or downloads. */
export const VIEW_SANDBOX = 'allow-scripts allow-same-origin allow-forms';
/** A view's height at most, in pixels. */
const MAX_HEIGHT = 4000;

/** Renders `view` into `element` (appended); returns the function that removes it. */
export function mountMcpApp(element: HTMLElement, view: McpAppView): () => void {
  const doc = element.ownerDocument;
  const frame = doc.createElement('iframe');
  frame.title = `App: ${view.server} ${view.tool}`;
  frame.className = 'mcp-app-frame';
  frame.setAttribute('sandbox', VIEW_SANDBOX);
  frame.setAttribute('referrerpolicy', 'no-referrer');
  const allow = buildAllowAttribute(view.resource.permissions);
  if (allow) frame.setAttribute('allow', allow);
  element.append(frame);
  const bridge = new AppBridge(
    null,
    { name: 'qiming-mcp-runtime', version: '1' },
    {
      openLinks: {},
      serverTools: {},
      serverResources: {},
      logging: {},
      message: { text: {} },
      updateModelContext: { text: {} },
      sandbox: {
        ...(view.resource.csp ? { csp: view.resource.csp as Record<string, string[]> } : {}),
        ...(view.resource.permissions ? { permissions: view.resource.permissions } : {}),
      },
    },
    { hostContext: { displayMode: 'inline', platform: 'desktop' } },
  );
  const tell = (kind: McpAppMessage['kind'], params: Record<string, unknown>) =>
    element.dispatchEvent(
      new CustomEvent<McpAppMessage>('mcp-app-message', {
        detail: { server: view.server, tool: view.tool, kind, params },
      }),
    );
  bridge.oncalltool = async (p) => (await view.host.callTool(p.name, p.arguments ?? {})) as never;
  bridge.onreadresource = async (p) => (await view.host.readResource(p.uri)) as never;
  bridge.onopenlink = async (p) => ((await view.host.openLink(p.url)) ? {} : { isError: true });
  bridge.onmessage = async (p) => {
    tell('message', p as Record<string, unknown>);
    return {};
  };
  bridge.onupdatemodelcontext = async (p) => {
    tell('model-context', p as Record<string, unknown>);
    return {};
  };
  bridge.onsizechange = (p) => {
    if (typeof p.height === 'number' && p.height > 0) frame.style.height = `${Math.min(p.height, MAX_HEIGHT)}px`;
  };
  bridge.onsandboxready = () => {
    void bridge.sendSandboxResourceReady({
      html: view.resource.html,
      ...(view.resource.csp ? { csp: view.resource.csp as Record<string, string[]> } : {}),
      ...(view.resource.permissions ? { permissions: view.resource.permissions } : {}),
    });
  };
  bridge.oninitialized = () => {
    void bridge.sendToolInput({ arguments: view.arguments });
    if (view.result) void bridge.sendToolResult(view.result as never);
  };
  const win = frame.contentWindow!;
  let closed = false;
  void bridge.connect(new PostMessageTransport(win, win)).then(() => {
    if (closed) return;
    const url = new URL(view.sandbox);
    url.searchParams.set('host', doc.defaultView?.location.origin ?? '');
    if (view.resource.csp) url.searchParams.set('csp', JSON.stringify(view.resource.csp));
    frame.src = url.href;
  });
  return () => {
    closed = true;
    void bridge.close().catch(() => undefined);
    frame.remove();
  };
}
