// The Seatbelt profile a sandboxed server runs under on macOS (sandbox-exec cannot run here, so
// its text is what is checked): everything denied first, then the system read-only, the private
// HOME and temporary folder writable, the installation and `read` paths read-only, `write` paths
// writable, and the network as the policy says; paths quoted for the profile language.
import { describe, expect, it } from 'vitest';
import { sbString, seatbeltProfile } from '../../../src/proxy/sandbox/seatbeltProfile.js';

const base = { privateHome: '/Users/u/Library/Application Support/q/sandbox/s/home', tmp: '/Users/u/q/tmp' };

describe('the Seatbelt profile', () => {
  it('denies by default and allows only the paths of the policy', () => {
    const p = seatbeltProfile({
      ...base,
      policy: { read: ['/Users/u/docs'], write: ['/Users/u/project'], network: 'none' },
      install: ['/opt/homebrew/lib/node_modules'],
    });
    const lines = p.trimEnd().split('\n');
    expect(lines.slice(0, 2)).toEqual(['(version 1)', '(deny default)']);
    expect(lines).toContain(`(allow file-read* file-write* (subpath "${base.privateHome}") (subpath "${base.tmp}"))`);
    expect(lines).toContain('(allow file-read* (subpath "/opt/homebrew/lib/node_modules"))');
    expect(lines).toContain('(allow file-read* (subpath "/Users/u/docs"))');
    expect(lines).toContain('(allow file-read* file-write* (subpath "/Users/u/project"))');
    expect(p).not.toMatch(/network/);
    expect(p).not.toContain('(subpath "/Users/u")');
  });

  it('network "all" allows any; an allow-list only the proxy on localhost', () => {
    const all = seatbeltProfile({ ...base, policy: { read: [], write: [], network: 'all' }, install: [] });
    expect(all).toContain('(allow network*)');
    const listed = seatbeltProfile({
      ...base,
      policy: { read: [], write: [], network: { allow: ['api.example.com'] } },
      install: [],
      proxyPort: 51234,
    });
    expect(listed).toContain('(allow network-outbound (remote ip "localhost:51234"))');
    expect(listed).not.toContain('(allow network*)');
  });

  it('quotes paths with quotes and backslashes', () => {
    expect(sbString('/a "b"\\c')).toBe('"/a \\"b\\"\\\\c"');
  });
});
