// LogTail on real files: partial lines, continuation folding, UTF-8 split across reads,
// truncation, deletion and re-creation, rotation by rename, start on a missing file, and a
// stop() that leaves no watcher or file handle behind.
// Most tests switch the safety poll off (pollMs 60 s) and call poll() themselves: poll()
// resolves once everything appended before the call was read, which keeps them exact.
import { afterEach, describe, expect, it } from 'vitest';
import {
  appendFileSync,
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  renameSync,
  rmSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LogTail, type LogTailOptions, type TailEntry } from '../../src/main/logs/logTail.js';
import { formatEntry, type LogLevel } from '../../src/proxy/common/logger.js';
import { waitFor as poll } from '../helpers/waitFor.js';

const FLUSH_MS = 30;
/**
 * Past the flush period: a poll() after this delivers any entry still held (it is stale by
 * then), so what the tail delivered is final; a slow machine only makes it more so.
 */
const PAST_FLUSH_MS = FLUSH_MS * 3;
let dir = '';
const tails: LogTail[] = [];

afterEach(async () => {
  await Promise.all(tails.splice(0).map((t) => t.stop()));
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = '';
});

const waitFor = (cond: () => boolean, timeoutMs: number, what: string | (() => string)) =>
  poll(cond, timeoutMs, what, 5);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function line(message: string, tag = 'srv', level: LogLevel = 'info'): string {
  return formatEntry(level, tag, message, new Date(2026, 0, 2, 3, 4, 5, 678));
}

/** A tail on `<tmp>/logs/p.log` recording entries and errors. */
function setup(options: Partial<LogTailOptions> = {}) {
  dir = mkdtempSync(join(tmpdir(), 'logtail-'));
  const file = join(dir, 'logs', 'p.log');
  const entries: TailEntry[] = [];
  const errors: Error[] = [];
  const tail = new LogTail({
    path: file,
    startAt: 'start',
    pollMs: 60_000,
    entryFlushMs: FLUSH_MS,
    onEntry: (e) => entries.push(e),
    onError: (e) => errors.push(e),
    ...options,
  });
  tails.push(tail);
  const messages = () => entries.map((e) => e.message);
  /** Reads, then waits until `n` entries arrived; and checks no more come after a flush period. */
  const expectMessages = async (expected: string[]) => {
    await tail.poll();
    await waitFor(
      () => entries.length >= expected.length,
      5000,
      () => `${expected.length} entries, have ${JSON.stringify(messages())}`,
    );
    await sleep(PAST_FLUSH_MS);
    await tail.poll();
    expect(messages()).toEqual(expected);
  };
  return { file, tail, entries, errors, messages, expectMessages };
}

describe('LogTail', () => {
  it('starts on a missing file and folder, creates them, and follows appends through the watcher alone', async () => {
    const { file, tail, entries, errors } = setup();
    expect(existsSync(file)).toBe(false);
    await tail.start();
    expect(existsSync(file)).toBe(true);
    // No poll() here and the safety poll is 60 s away: only a chokidar event can wake the tail.
    appendFileSync(file, line('hello', 'alpha', 'warn'));
    await waitFor(
      () => entries.length === 1,
      10_000,
      () => 'the watcher to deliver',
    );
    expect(entries[0]).toMatchObject({
      level: 'warn',
      tag: 'alpha',
      message: 'hello',
      tsText: '2026-01-02 03:04:05.678',
    });
    expect(entries[0]!.ts!.getTime()).toBe(new Date(2026, 0, 2, 3, 4, 5, 678).getTime());
    expect(entries[0]!.raw).toBe(line('hello', 'alpha', 'warn').trimEnd());
    expect(errors).toEqual([]);
  });

  it("startAt 'end' skips complete old lines but delivers an unfinished last line once complete", async () => {
    const { file, tail, expectMessages } = setup({ startAt: 'end' });
    const c = line('C');
    mkdirSync(join(dir, 'logs'));
    writeFileSync(file, line('A') + line('B') + c.slice(0, 20));
    await tail.start();
    appendFileSync(file, c.slice(20) + line('D'));
    await expectMessages(['C', 'D']);
  });

  it("startAt 'start' reads what is already there", async () => {
    const { file, tail, expectMessages } = setup();
    mkdirSync(join(dir, 'logs'));
    writeFileSync(file, line('A') + line('B'));
    await tail.start();
    await expectMessages(['A', 'B']);
  });

  it('keeps a partial line until its newline arrives', async () => {
    const { file, tail, entries, expectMessages } = setup();
    await tail.start();
    appendFileSync(file, '[2026-01-02 03:04:05.678] [info] [srv] hel');
    await tail.poll();
    await sleep(PAST_FLUSH_MS);
    await tail.poll();
    expect(entries).toEqual([]);
    appendFileSync(file, 'lo\n');
    await expectMessages(['hello']);
  });

  it('folds continuation and foreign lines into the entry before them, even from later writes', async () => {
    const { file, tail, entries } = setup({ entryFlushMs: 60_000 });
    await tail.start();
    appendFileSync(file, 'stray before any entry\n');
    appendFileSync(file, line('first\nsecond'));
    await tail.poll();
    appendFileSync(file, '    third\n');
    await tail.poll();
    appendFileSync(file, 'not indented\r\n' + line('next', 'other', 'error'));
    await tail.poll();
    expect(entries.map((e) => e.message)).toEqual(['stray before any entry', 'first\nsecond\nthird\nnot indented']);
    expect(entries[0]).toMatchObject({ level: 'info', raw: 'stray before any entry' });
    expect(entries[0]!.tag).toBeUndefined();
    expect(entries[1]!.raw).toBe('[2026-01-02 03:04:05.678] [info] [srv] first\n    second\n    third\nnot indented');
    // The last entry may still get continuation lines; stop() delivers it.
    await tail.stop();
    expect(entries[2]).toMatchObject({ level: 'error', tag: 'other', message: 'next' });
  });

  it('decodes UTF-8 sequences split across reads', async () => {
    const { file, tail, expectMessages } = setup();
    await tail.start();
    const bytes = Buffer.from(line('é 😀 中文 ✓'));
    for (let i = 0; i < bytes.length; i++) {
      appendFileSync(file, bytes.subarray(i, i + 1)); // one byte per read
      await tail.poll();
    }
    await expectMessages(['é 😀 中文 ✓']);
  });

  it('restarts at 0 after a truncation, without repeating what was read', async () => {
    const { file, tail, expectMessages } = setup();
    await tail.start();
    appendFileSync(file, line('one') + line('two'));
    await expectMessages(['one', 'two']);
    truncateSync(file, 0);
    appendFileSync(file, line('3'));
    await expectMessages(['one', 'two', '3']);
  });

  it('notices a truncation even when the file regrew past the old offset before it looked', async () => {
    const { file, tail, expectMessages } = setup();
    await tail.start();
    appendFileSync(file, line('old-1') + line('old-2'));
    await expectMessages(['old-1', 'old-2']);
    truncateSync(file, 0);
    appendFileSync(file, line('new-1 is longer') + line('new-2 is longer') + line('new-3'));
    await expectMessages(['old-1', 'old-2', 'new-1 is longer', 'new-2 is longer', 'new-3']);
  });

  it('reads a deleted file to its end, then the re-created one from 0', async () => {
    const { file, tail, expectMessages } = setup();
    await tail.start();
    appendFileSync(file, line('A'));
    await expectMessages(['A']);
    appendFileSync(file, line('B')); // not read yet when the file goes away
    unlinkSync(file);
    appendFileSync(file, line('C')); // a new file under the same name
    await expectMessages(['A', 'B', 'C']);
    unlinkSync(file);
    await tail.poll(); // no file for a while
    appendFileSync(file, line('D'));
    await expectMessages(['A', 'B', 'C', 'D']);
  });

  it('after a rename, finishes the old file (late appends included) before the new one', async () => {
    const { file, tail, expectMessages } = setup();
    await tail.start();
    appendFileSync(file, line('A'));
    await expectMessages(['A']);
    // A writer that opened the old name just before the rename appends after it.
    const late = openSync(file, 'a');
    renameSync(file, `${file}.1`);
    await tail.poll(); // the tail sees the rename while no new file exists
    writeSync(late, line('B (late, old file)'));
    appendFileSync(file, line('C (new file)')); // the same writer's next entry
    await expectMessages(['A', 'B (late, old file)', 'C (new file)']);
    // Same again, with the new file already there when the tail first looks.
    const late2 = openSync(file, 'a');
    renameSync(file, `${file}.1`);
    writeSync(late2, line('D (late)'));
    appendFileSync(file, line('E') + line('F')); // E is complete at once; D must still come first
    await expectMessages(['A', 'B (late, old file)', 'C (new file)', 'D (late)', 'E', 'F']);
    closeSync(late);
    closeSync(late2);
  });

  it('reports an onEntry exception and keeps going', async () => {
    const { file, tail, entries, errors, expectMessages } = setup({
      onEntry: (e) => {
        entries.push(e);
        if (e.message === 'boom') throw new Error('consumer failed');
      },
    });
    await tail.start();
    appendFileSync(file, line('boom') + line('after'));
    await expectMessages(['boom', 'after']);
    expect(errors.map((e) => e.message)).toEqual(['consumer failed']);
  });

  it('stop() closes the watcher and every file handle, and is idempotent', async () => {
    const fdsInto = (d: string) =>
      process.platform === 'linux'
        ? readdirSync('/proc/self/fd').filter((fd) => {
            try {
              return readlinkSync(`/proc/self/fd/${fd}`).startsWith(d);
            } catch {
              return false;
            }
          }).length
        : 0;
    // The watcher's fs.watch handles are unref'd, so getActiveResourcesInfo() does not list
    // them; on Linux the kernel does: one `inotify wd:` line per watch in the fdinfo.
    const watchers = () =>
      process.platform === 'linux'
        ? readdirSync('/proc/self/fd')
            .filter((fd) => {
              try {
                return readlinkSync(`/proc/self/fd/${fd}`) === 'anon_inode:inotify';
              } catch {
                return false;
              }
            })
            .map(
              (fd) =>
                readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8')
                  .split('\n')
                  .filter((l) => l.startsWith('inotify wd:')).length,
            )
            .reduce((a, b) => a + b, 0)
        : 0;
    const { file, tail, expectMessages } = setup();
    const watchersBefore = watchers();
    await tail.start();
    appendFileSync(file, line('A'));
    const late = openSync(file, 'a');
    renameSync(file, `${file}.1`);
    appendFileSync(file, line('B'));
    await expectMessages(['A', 'B']);
    closeSync(late);
    // While running: a watcher and two open files (the renamed one is still in its grace time).
    if (process.platform === 'linux') {
      expect(watchers()).toBeGreaterThan(watchersBefore);
      expect(fdsInto(dir)).toBe(2);
    }
    await Promise.all([tail.stop(), tail.stop()]);
    await tail.stop();
    expect(watchers()).toBe(watchersBefore);
    expect(fdsInto(dir)).toBe(0);
    await expect(tail.start()).rejects.toThrow(/twice/);
    const never = new LogTail({ path: join(dir, 'never.log'), onEntry: () => {} });
    await never.stop(); // stop before start is fine
  });
});
