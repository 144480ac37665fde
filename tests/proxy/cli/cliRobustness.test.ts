// Hostile input through the built CLI: a 12 MiB line (over the 10 MiB cap), 1 MiB of
// random bytes, then a valid request. Every bad frame gets a JSON-RPC error, the valid
// request is served, and the process stays up and keeps serving.
import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { CliProcess, cleanup, configJson, pidServerEntry, tempDir, waitFor } from '../../helpers/cliProcess.js';

afterEach(cleanup);

/** Deterministic pseudo-random bytes (xorshift32), so a failure can be replayed. */
function randomBytes(size: number, seed = 0x9e3779b9): Buffer {
  const out = Buffer.alloc(size);
  let x = seed >>> 0;
  for (let i = 0; i < size; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out[i] = x & 0xff;
  }
  return out;
}

/** Writes a big buffer in pieces, waiting for the pipe to drain (real backpressure). */
async function writeAll(p: CliProcess, data: Buffer, piece = 256 * 1024): Promise<void> {
  for (let i = 0; i < data.length; i += piece) {
    if (!p.child.stdin!.write(data.subarray(i, i + piece))) {
      await new Promise<void>((r) => p.child.stdin!.once('drain', () => r()));
    }
  }
}

describe('CLI under hostile input', () => {
  it('answers a 12 MiB line and 1 MiB of random bytes with errors, then serves the next request', async () => {
    const pidFile = join(tempDir(), 'pids.jsonl');
    const p = new CliProcess(['--config', configJson({ srv: pidServerEntry(pidFile) }), '--idle-timeout', '0']);
    await p.initialize();

    // A well-formed request, 12 MiB long, carrying an id the error can echo.
    const huge = Buffer.from(
      `{"jsonrpc":"2.0","id":"huge","method":"tools/call","params":{"name":"srv__echo","arguments":{"text":"${'x'.repeat(12 * 1024 * 1024)}"}}}\n`,
    );
    await writeAll(p, huge);
    const noise = randomBytes(1024 * 1024);
    await writeAll(p, Buffer.concat([noise, Buffer.from('\n')]));
    p.send({
      jsonrpc: '2.0',
      id: 42,
      method: 'tools/call',
      params: { name: 'srv__echo', arguments: { text: 'still here' } },
    });

    const served = await p.reply(42, 30_000);
    expect(served.result.content[0].text).toBe('still here');

    const errors = p.messages().filter((m) => m.error !== undefined);
    const oversize = errors.filter(
      (m) => m.error.code === -32600 && /exceeds the 10485760-byte limit/.test(m.error.message),
    );
    expect(oversize).toHaveLength(1);
    expect(['huge', null]).toContain(oversize[0].id);
    // The random bytes hold many newline-separated pieces: each one is an error with id null.
    const parseErrors = errors.filter((m) => m.error.code === -32700);
    expect(parseErrors.length).toBeGreaterThan(100);
    for (const e of parseErrors) expect(e.id).toBeNull();
    // Nothing was answered as if it were a success except initialize and the valid request.
    expect(
      p
        .messages()
        .filter((m) => m.result !== undefined)
        .map((m) => m.id),
    ).toEqual([1, 42]);
    // Every line on stdout is still well-formed JSON-RPC.
    for (const line of p.lines()) expect(JSON.parse(line).jsonrpc).toBe('2.0');

    // Still alive and serving.
    expect(p.exit).toBeUndefined();
    p.send({ jsonrpc: '2.0', id: 43, method: 'tools/list' });
    expect((await p.reply(43)).result.tools).toHaveLength(3);
    p.child.stdin!.end();
    expect((await p.waitExit(10_000)).code).toBe(0);
  });

  it('honours --max-message-bytes and resynchronises at the next Content-Length frame', async () => {
    const pidFile = join(tempDir(), 'pids.jsonl');
    const p = new CliProcess(['--config', configJson({ srv: pidServerEntry(pidFile) }), '--max-message-bytes', '1000']);
    await p.initialize();
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 'big',
      method: 'tools/call',
      params: { name: 'srv__echo', arguments: { text: 'y'.repeat(5000) } },
    });
    const ok = JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'srv__add', arguments: { a: 2, b: 3 } },
    });
    p.write(
      `Content-Length: ${Buffer.byteLength(big)}\r\n\r\n${big}Content-Length: ${Buffer.byteLength(ok)}\r\n\r\n${ok}`,
    );
    const bodies = await waitFor(
      () => {
        const text = p.stdout.toString('utf8');
        const found = [...text.matchAll(/Content-Length: (\d+)\r\n\r\n/g)].map((m) => {
          const start = m.index + m[0].length;
          return JSON.parse(
            Buffer.from(text, 'utf8')
              .subarray(Buffer.byteLength(text.slice(0, start)), Buffer.byteLength(text.slice(0, start)) + Number(m[1]))
              .toString('utf8'),
          );
        });
        return found.some((b) => b.id === 7) && found;
      },
      15_000,
      'the reply to id 7',
    );
    expect(bodies.find((b: { id: unknown }) => b.id === 7).result.content[0].text).toBe('5');
    const err = bodies.find((b: { error?: unknown }) => b.error);
    expect(err.error.message).toMatch(/exceeds the 1000-byte limit/);
    p.child.stdin!.end();
    expect((await p.waitExit(10_000)).code).toBe(0);
  });
});
