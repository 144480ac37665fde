/**
 * What was installed where: `<data folder>/installs.json`, one record per server id, so the
 * Browse view can say "Installed" and "a newer version is available", and uninstall knows
 * which folder to remove. Written atomically, private (0600).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeAtomic } from '../common/writeAtomic.js';

export interface InstallRecord {
  /** `registry`: from a registry's server.json; `bundle`: a .mcpb file opened by the user. */
  source: 'registry' | 'bundle';
  /** The registry's server name, or the bundle's manifest name. */
  name: string;
  version: string;
  registry?: string;
  /** The unpacked bundle's folder (absolute), removed on uninstall. */
  folder?: string;
  sha256?: string;
  /** The secret store's names its install kept values under, forgotten on uninstall. */
  secrets?: string[];
  installedAt: string;
}

export type InstallRecords = Record<string, InstallRecord>;

export const RECORDS_FILE = 'installs.json';

export function readRecords(dataDir: string): InstallRecords {
  try {
    const parsed: unknown = JSON.parse(readFileSync(join(dataDir, RECORDS_FILE), 'utf8'));
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as InstallRecords) : {};
  } catch {
    return {};
  }
}

export function writeRecords(dataDir: string, records: InstallRecords): void {
  writeAtomic(join(dataDir, RECORDS_FILE), `${JSON.stringify(records, null, 2)}\n`, 0o600);
}
