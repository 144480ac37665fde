// Proxy log file -> LogTail -> electron-log (its real node build, writing a real file): each
// entry lands at its level, under its tag as scope, with the proxy's timestamp.
import { afterEach, describe, expect, it } from 'vitest';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import electronLog from 'electron-log/node';
import { createElectronLogSink, type ElectronLogLike } from '../../src/main/logs/logForwarder.js';
import { LogTail } from '../../src/main/logs/logTail.js';
import { Logger, fileSink, formatEntry } from '../../src/proxy/common/logger.js';
import { waitFor as poll } from '../helpers/waitFor.js';

let dir = '';
let tail: LogTail | undefined;
afterEach(async () => {
  await tail?.stop();
  tail = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = '';
});

const waitFor = (cond: () => boolean, timeoutMs: number, what: string | (() => string)) =>
  poll(cond, timeoutMs, what, 10);

describe('createElectronLogSink', () => {
  it('writes tailed entries to electron-log at their level, scoped by tag, with the original timestamp', async () => {
    dir = mkdtempSync(join(tmpdir(), 'logfwd-'));
    const proxyFile = join(dir, 'mcp-proxy.log');
    const mainFile = join(dir, 'main.log');
    const log = electronLog.create({ logId: `logfwd-${process.pid}-${Date.now()}` });
    log.transports.file.resolvePathFn = () => mainFile;
    log.transports.console.level = false; // keep test output clean; the file is what we check
    const sink: ElectronLogLike = log; // the real logger satisfies the narrow interface
    let forwarded = 0;
    const forward = createElectronLogSink(sink);
    tail = new LogTail({
      path: proxyFile,
      startAt: 'start',
      pollMs: 100,
      entryFlushMs: 20,
      onEntry: (e) => (forwarded++, forward(e)),
    });
    await tail.start();

    // The proxy's real logger writes one entry; two more carry a timestamp from long ago, which
    // proves the date comes from the line and not from the moment main read it.
    new Logger('srv-a', { level: 'debug', sinks: [fileSink(proxyFile)] }).debug('from the proxy logger');
    const old = new Date(2001, 1, 3, 4, 5, 6, 789);
    appendFileSync(proxyFile, formatEntry('warn', 'srv-b', 'disk almost full\nsecond line', old));
    appendFileSync(proxyFile, formatEntry('error', 'srv-c', 'crashed', old));
    appendFileSync(proxyFile, 'foreign text\n' + formatEntry('info', 'x', 'unrelated', old));
    await waitFor(
      () => forwarded === 4,
      10_000,
      () => `4 forwarded entries, have ${forwarded}`,
    );
    await tail.stop();

    expect(existsSync(mainFile)).toBe(true);
    const text = readFileSync(mainFile, 'utf8');
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}\] \[debug\] \(srv-a\) +from the proxy logger$/);
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(/^\[2001-02-03 04:05:06\.789\] \[warn\] +\(srv-b\) +disk almost full$/),
      'second line',
      expect.stringMatching(/^\[2001-02-03 04:05:06\.789\] \[error\] +\(srv-c\) +crashed$/),
      'foreign text',
      expect.stringMatching(/^\[2001-02-03 04:05:06\.789\] \[info\] +\(x\) +unrelated$/),
    ]);
  });

  it('dates a stray line (no header) now and scopes it as the default scope', () => {
    const got: unknown[] = [];
    const before = Date.now();
    createElectronLogSink(
      { processMessage: (m) => got.push(m) },
      { defaultScope: 'mcp' },
    )({ level: 'info', message: 'x', raw: 'x' });
    expect(got).toEqual([{ data: ['x'], date: expect.any(Date), level: 'info', scope: 'mcp' }]);
    expect((got[0] as { date: Date }).date.getTime()).toBeGreaterThanOrEqual(before);
  });
});

describe('log tail files', () => {
  it('never import electron (they run in plain Node)', () => {
    for (const f of ['logPaths.ts', 'logEntryParser.ts', 'logTail.ts', 'logForwarder.ts']) {
      const src = readFileSync(join(import.meta.dirname, '..', '..', 'src', 'main', 'logs', f), 'utf8');
      expect(src, f).not.toMatch(
        /from\s+['"]electron(-log)?(\/[^'"]*)?['"]|require\(\s*['"]electron|import\(\s*['"]electron/,
      );
    }
  });
});
