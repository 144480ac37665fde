/**
 * The sandbox proxy page's script (`sandbox.html`, served on the bridge's second loopback
 * origin): it tells the page it is ready, takes the view's HTML from the page
 * (`ui/notifications/sandbox-resource-ready`), renders it in an inner sandboxed frame (which
 * inherits this page's Content-Security-Policy: the view's), and relays every other message
 * between the page (only the origin named in `?host=`) and the view, as the MCP Apps spec's
 * "sandbox proxy" does.
 */
const host = new URLSearchParams(location.search).get('host') ?? '';
/** Messages go to the page's origin only; a page on a file:// or custom origin reads as "null", reached by "*". */
const target = /^https?:\/\//.test(host) ? host : '*';
let inner: HTMLIFrameElement | undefined;

function allowOf(permissions: unknown): string {
  const p = (permissions ?? {}) as Record<string, unknown>;
  const names: Record<string, string> = {
    camera: 'camera',
    microphone: 'microphone',
    geolocation: 'geolocation',
    clipboardWrite: 'clipboard-write',
  };
  return Object.keys(names)
    .filter((k) => p[k] !== undefined)
    .map((k) => names[k])
    .join('; ');
}

function load(params: Record<string, unknown>): void {
  if (inner || typeof params.html !== 'string') return;
  inner = document.createElement('iframe');
  inner.setAttribute('sandbox', 'allow-scripts allow-same-origin allow-forms');
  const allow = allowOf(params.permissions);
  if (allow) inner.setAttribute('allow', allow);
  inner.style.cssText = 'border:0;width:100%;height:100%;display:block';
  inner.srcdoc = params.html;
  document.body.append(inner);
}

window.addEventListener('message', (e) => {
  if (e.source === window.parent && (target === '*' || e.origin === host)) {
    const m = e.data as { method?: unknown; params?: unknown } | null;
    if (m && m.method === 'ui/notifications/sandbox-resource-ready')
      return load((m.params ?? {}) as Record<string, unknown>);
    inner?.contentWindow?.postMessage(e.data, '*');
  } else if (inner && e.source === inner.contentWindow) {
    window.parent.postMessage(e.data, target);
  }
});
document.documentElement.style.cssText = 'margin:0;height:100%';
document.body.style.cssText = 'margin:0;height:100%';
window.parent.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/sandbox-proxy-ready', params: {} }, target);
