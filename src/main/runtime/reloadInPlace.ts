/**
 * A config change applied inside the running bridge (`POST /config/reload`) instead of a
 * restart of the whole bridge: the bridge re-reads the file and starts, stops or restarts
 * only the servers whose entries changed (src/proxy/bridge/reload.ts). McpRuntime calls it
 * for a ready bridge and restarts the bridge only when this returns false.
 */
import type { BridgeRun } from './bridgeRun.js';
import type { RuntimeStatusBook } from './runtimeStatusBook.js';
import type { RuntimeLogger } from '../logs/runtimeLogger.js';

/** Asks `run`'s bridge to apply the file; false when it did not answer (restart it then). */
export async function reloadInPlace(run: BridgeRun, log: RuntimeLogger, book: RuntimeStatusBook): Promise<boolean> {
  const answer = await run.client.reload();
  if (!answer) {
    log.warn('the bridge did not take the config change; restarting it');
    return false;
  }
  if (!answer.ok) {
    // Changed again between our read and the bridge's: the next change event retries.
    log.error(`MCP config not applied by the bridge: ${answer.error}`);
    book.setConfigError(answer.error);
    return true;
  }
  const did = [
    ['added', answer.added],
    ['removed', answer.removed],
    ['restarted', answer.restarted],
    ['options', answer.options],
  ] as const;
  const parts = did.filter(([, ids]) => ids.length).map(([what, ids]) => `${what} ${ids.join(', ')}`);
  log.info(`MCP config applied in the running bridge: ${parts.join('; ') || 'nothing to change'}`);
  return true;
}
