// A bridge for the install tests: an empty config file in a temp folder, the data folder beside
// it, the fixture registry as its registry, npm offline.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startBridge, tempDir, type BridgeProcess } from './bridgeProcess.js';

/** The bridge, its config file and its data folder. */
export interface InstallBridge {
  bridge: BridgeProcess;
  file: string;
  dataDir: string;
}

/** Starts a bridge on an empty config in a new temp folder named `prefix`, asking `registryUrl`. */
export async function startInstallBridge(registryUrl: string, prefix: string): Promise<InstallBridge> {
  const dir = tempDir(prefix);
  const file = join(dir, 'mcp.json');
  const dataDir = join(dir, 'data');
  writeFileSync(file, JSON.stringify({ mcpServers: {} }));
  const bridge = await startBridge({
    config: file,
    env: { QIMING_REGISTRY_URL: registryUrl, QIMING_DATA_DIR: dataDir, npm_config_offline: 'true' },
  });
  return { bridge, file, dataDir };
}
