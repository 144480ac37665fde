/**
 * A re-install's "what changes" line for the sandbox: the entry's own `"sandbox"` as the config
 * file holds it, beside the one the consent proposes (and writes unless the user changes it
 * there); nothing when they are the same.
 */
import { sandboxSummary, type SandboxPolicy, type SandboxSetting } from '../../shared/sandbox.js';

/** What a setting allows, in the words of the panel's sandbox line. */
function described(s: SandboxSetting | null | undefined): string {
  if (s === undefined || s === null) return "none of its own (the config's default)";
  if (s === false) return 'off';
  const o = s === true ? {} : s;
  return sandboxSummary({
    read: o.filesystem?.read ?? [],
    write: o.filesystem?.write ?? [],
    network: o.network ?? 'none',
  });
}

/** `sandbox: <before> → <proposed> (as proposed)`, or undefined when nothing changes. */
export function sandboxChange(before: SandboxSetting | null | undefined, proposed: SandboxPolicy): string | undefined {
  const was = described(before);
  const will = sandboxSummary(proposed);
  return was === will ? undefined : `sandbox: ${was} → ${will} (as proposed)`;
}
