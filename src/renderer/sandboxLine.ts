// A server card's sandbox line: "Sandboxed (bubblewrap): files ...; network ...", hidden for a
// server with none; built once and updated in place, text only.
import type { SandboxStatus } from '../shared/sandbox.js';
import { sandboxSummary } from '../shared/sandbox.js';
import { el, setHidden, setText } from './dom.js';

export interface SandboxLine {
  root: HTMLElement;
  update(sandbox: SandboxStatus | undefined): void;
}

export function createSandboxLine(): SandboxLine {
  const root = el('p', 'sandbox-line');
  root.hidden = true;
  return {
    root,
    update(sandbox) {
      setHidden(root, !sandbox);
      setText(
        root,
        sandbox ? `Sandboxed (${sandbox.engine}): ${sandboxSummary(sandbox)}; private HOME ${sandbox.home}` : '',
      );
    },
  };
}
