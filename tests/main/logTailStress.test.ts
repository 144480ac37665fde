// 100k entries from 4 real writer processes (appendFileSync per entry, like the proxy) into one
// file, with a truncation and two renames in between.
//
// What "none lost" means around the truncation: the writers pause (signal files), the test
// waits until the tail has delivered every entry written so far, then truncates and writes a
// marker, and resumes the writers once the marker arrived. Bytes written before a truncation
// but not yet read are destroyed by the truncation itself; no reader can deliver them, so the
// test does not ask for that. The rename needs no such care: writer 0 renames the file itself
// in mid-flight while the others keep appending, and every entry must still arrive.
import { afterEach, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_ENTRY_FLUSH_MS, LogTail, type TailEntry } from '../../src/main/logs/logTail.js';
import { formatEntry } from '../../src/proxy/common/logger.js';
import { isAlive } from '../../src/proxy/process/processTree.js';
import { waitFor as poll } from '../helpers/waitFor.js';

const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'logWriter.mjs');
const WRITERS = 4;
const PER_WRITER = 25_000;
const PAUSE_AT = 10_000;
/** Writer 0 renames the file away at this seq, while the others keep appending. */
const ROTATE_AT = 15_000;
/** Three times the tail's entry flush period. */
const PAST_FLUSH_MS = 3 * DEFAULT_ENTRY_FLUSH_MS;

/** Same text as messageFor() in the fixture. */
function messageFor(i: number): string {
  return i % 10 === 3 ? `seq=${i} multi é😀\ndetail ${i} ✓ 中文\n  indented ${i}` : `seq=${i}`;
}

const waitFor = (cond: () => boolean, timeoutMs: number, what: string | (() => string)) =>
  poll(cond, timeoutMs, what, 10);

let dir = '';
let tail: LogTail | undefined;
let children: ChildProcess[] = [];

afterEach(async () => {
  await tail?.stop();
  tail = undefined;
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await waitFor(() => children.every((c) => !isAlive(c.pid!)), 5000, 'writers to be gone');
  for (const c of children) expect(() => process.kill(c.pid!, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
  children = [];
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = '';
});

describe('LogTail under concurrent writer processes', () => {
  it('delivers 100k entries exactly once and in order per writer across a truncation and a rename', async () => {
    dir = mkdtempSync(join(tmpdir(), 'logtail-stress-'));
    const file = join(dir, 'logs', 'mcp-proxy.log');
    const control = join(dir, 'control');
    mkdirSync(control);
    const entries: TailEntry[] = [];
    const errors: Error[] = [];
    tail = new LogTail({
      path: file,
      startAt: 'start',
      pollMs: 200,
      onEntry: (e) => entries.push(e),
      onError: (e) => errors.push(e),
    });
    await tail.start();

    const exits: Promise<number | null>[] = [];
    const stderr: string[] = [];
    for (let w = 0; w < WRITERS; w++) {
      const args = [
        FIXTURE,
        file,
        String(w),
        String(PER_WRITER),
        control,
        String(PAUSE_AT),
        String(w === 0 ? ROTATE_AT : -1),
      ];
      const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
      child.stderr!.on('data', (d) => stderr.push(String(d)));
      exits.push(new Promise((r) => child.once('exit', (code) => r(code))));
      children.push(child);
    }

    // Phase 1: every writer reaches its pause point; the tail catches up with all of it.
    await waitFor(
      () => [...Array(WRITERS).keys()].every((w) => existsSync(join(control, `paused-w${w}`))),
      30_000,
      'writers to pause',
    );
    await waitFor(() => entries.length === WRITERS * PAUSE_AT, 20_000, 'phase 1 entries');

    // Truncate while nobody writes, and prove the tail noticed before writers go on.
    truncateSync(file, 0);
    appendFileSync(file, formatEntry('warn', 'ctl', 'truncated'));
    await waitFor(() => entries.length === WRITERS * PAUSE_AT + 1, 10_000, 'the marker after truncation');
    writeFileSync(join(control, 'resume'), '');

    // Phase 2: all writers at full speed; writer 0 renames the file in mid-flight.
    const codes = await Promise.all(exits);
    expect(codes, stderr.join('')).toEqual(Array(WRITERS).fill(0));
    const total = WRITERS * PER_WRITER + 1;
    await waitFor(
      () => entries.length >= total,
      20_000,
      () => `all ${total} entries (have ${entries.length}, errors ${errors.map(String)})`,
    );
    // Let late wake-ups and the entry flush run; nothing more may arrive. Past the flush
    // period a poll() delivers whatever is still held, so the count after it is final.
    await tail.poll();
    await new Promise((r) => setTimeout(r, PAST_FLUSH_MS));
    await tail.poll();

    expect(errors).toEqual([]);
    expect(existsSync(`${file}.1`)).toBe(true); // the rename did happen
    expect(entries.length).toBe(total);
    const marker = entries[WRITERS * PAUSE_AT]!;
    expect([marker.tag, marker.level, marker.message]).toEqual(['ctl', 'warn', 'truncated']);

    const expected = Array.from({ length: PER_WRITER }, (_, i) => messageFor(i));
    for (let w = 0; w < WRITERS; w++) {
      const mine = entries.filter((e) => e.tag === `w${w}`);
      // Equal arrays: every seq once (none lost, none duplicated), in the writer's order, and
      // every multi-line entry folded whole with its UTF-8 intact.
      expect(mine.map((e) => e.message)).toEqual(expected);
      expect(mine.every((e) => e.level === 'info' && e.ts instanceof Date)).toBe(true);
    }
    // Entries before the marker all come from before the pause, and none after it do.
    expect(entries.slice(0, WRITERS * PAUSE_AT).every((e) => Number(/seq=(\d+)/.exec(e.message)![1]) < PAUSE_AT)).toBe(
      true,
    );
    expect(
      entries.slice(WRITERS * PAUSE_AT + 1).every((e) => Number(/seq=(\d+)/.exec(e.message)![1]) >= PAUSE_AT),
    ).toBe(true);
  }, 60_000);
});
