/**
 * The server form's Sandbox fields for a stdio entry: the config's default, off, or on with
 * the paths it reads (one per line), the paths it writes, and its network (none, all, or only
 * the hosts listed one per line). Filled from the entry's own `"sandbox"` and read back as the
 * draft's; the runtime checks what is written (paths that exist, host patterns) and the form
 * shows its messages.
 */
import type { SandboxNetwork, SandboxSetting } from '../shared/sandbox.js';
import { el, setHidden } from './dom.js';
import { field, linesOf } from './controls.js';

export interface SandboxFields {
  root: HTMLElement;
  /** `mode`: the choice shown, when not the one `setting` is (a proposal filled in but not chosen). */
  fill(setting: SandboxSetting | null | undefined, mode?: 'default' | 'off' | 'on'): void;
  /** The entry's own `"sandbox"` to write: `null` for none (the config's default applies). */
  value(): SandboxSetting | null;
}

export function createSandboxFields(): SandboxFields {
  const mode = el('select');
  for (const [v, t] of [
    ['default', 'The config\'s default (off unless its top-level "sandbox" says)'],
    ['off', 'Off: it runs with all your rights'],
    ['on', 'On: only the files and network below'],
  ])
    mode.append(el('option', undefined, t, { value: v }));
  const read = el('textarea', undefined, undefined, { rows: '2', spellcheck: 'false' });
  const write = el('textarea', undefined, undefined, { rows: '2', spellcheck: 'false' });
  const network = el('select');
  for (const [v, t] of [
    ['none', 'None'],
    ['all', 'All'],
    ['allow', 'Only these hosts (HTTP and HTTPS)'],
  ])
    network.append(el('option', undefined, t, { value: v }));
  const hosts = el('textarea', undefined, undefined, { rows: '2', spellcheck: 'false' });
  const hostsField = field('Allowed hosts', hosts, 'One per line: host, host:port or *.domain.');
  const details = el('div', 'sandbox-fields');
  details.append(
    field('Read paths', read, 'Your files it may read, one absolute path (or ~/...) per line.'),
    field('Write paths', write, 'Your files it may read and write, one per line.'),
    field('Network', network),
    hostsField,
  );
  const root = el('fieldset', 'kind-fields sandbox-box');
  root.append(
    el('legend', undefined, 'Sandbox'),
    field('Run in a sandbox', mode, 'In a sandbox it sees the system, its own installation and a private HOME.'),
    details,
  );
  const show = () => {
    setHidden(details, mode.value !== 'on');
    setHidden(hostsField, network.value !== 'allow');
  };
  mode.addEventListener('change', show);
  network.addEventListener('change', show);

  return {
    root,
    fill(s, chosen) {
      mode.value = chosen ?? (s === undefined || s === null ? 'default' : s === false ? 'off' : 'on');
      const o = typeof s === 'object' && s !== null ? s : {};
      read.value = (o.filesystem?.read ?? []).join('\n');
      write.value = (o.filesystem?.write ?? []).join('\n');
      const n = o.network ?? 'none';
      network.value = typeof n === 'string' ? n : 'allow';
      hosts.value = typeof n === 'string' ? '' : n.allow.join('\n');
      show();
    },
    value() {
      if (mode.value === 'default') return null;
      if (mode.value === 'off') return false;
      const r = linesOf(read.value).map((l) => l.trim());
      const w = linesOf(write.value).map((l) => l.trim());
      const net: SandboxNetwork =
        network.value === 'allow'
          ? { allow: linesOf(hosts.value).map((l) => l.trim()) }
          : (network.value as 'none' | 'all');
      if (r.length === 0 && w.length === 0 && net === 'none') return true;
      const fs = { ...(r.length ? { read: r } : {}), ...(w.length ? { write: w } : {}) };
      return { ...(r.length || w.length ? { filesystem: fs } : {}), network: net };
    },
  };
}
