// Preloaded (NODE_OPTIONS=--require) into the peers the benchmarks run (supergateway,
// mcp-proxy, mcp-hub) and into everything they spawn. Two of them bind every interface
// with no option to change it, and mcp-hub fetches a catalogue at start-up, so:
// - every server socket listens on 127.0.0.1, whatever host the program asked for;
// - every outgoing TCP connection to a host that is not loopback fails at once, and the
//   attempt is appended to $BENCH_GUARD_LOG (the benchmark reports the count; it must be 0).
'use strict';
const net = require('node:net');
const fs = require('node:fs');

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+|localhost)$/i;

/** @param {string} what */
function note(what) {
  const file = process.env.BENCH_GUARD_LOG;
  try {
    if (file) fs.appendFileSync(file, `${process.pid} ${what}\n`);
  } catch {
    // The guard must not change the behaviour of the program beyond refusing the connection.
  }
}

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function guardedListen(/** @type {any[]} */ ...args) {
  const first = args[0];
  if (first === undefined || typeof first === 'function') {
    args.unshift(0, '127.0.0.1');
  } else if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
    if (typeof args[1] === 'string' || args[1] === undefined || args[1] === null) {
      if (args.length > 1) args[1] = '127.0.0.1';
      else args.push('127.0.0.1');
    } else {
      args.splice(1, 0, '127.0.0.1');
    }
  } else if (
    first &&
    typeof first === 'object' &&
    !('fd' in first) &&
    !('_handle' in first) &&
    first.path === undefined
  ) {
    args[0] = { ...first, host: '127.0.0.1' };
  }
  return listen.apply(this, /** @type {Parameters<typeof listen>} */ (args));
};

const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function guardedConnect(/** @type {any[]} */ ...args) {
  let opts = args[0];
  if (Array.isArray(opts)) opts = opts[0]; // internal normalized form [options, cb]
  let host;
  let isPath = false;
  if (opts && typeof opts === 'object') {
    host = opts.host;
    isPath = typeof opts.path === 'string';
  } else if (typeof opts === 'string' && !/^\d+$/.test(opts)) {
    isPath = true;
  } else {
    host = typeof args[1] === 'string' ? args[1] : undefined;
  }
  if (!isPath && host !== undefined && host !== '' && !LOOPBACK.test(String(host).replace(/^\[|\]$/g, ''))) {
    note(`blocked connection to ${host}`);
    const err = Object.assign(new Error(`bench loopback guard: connection to ${host} refused`), {
      code: 'ECONNREFUSED',
    });
    process.nextTick(() => this.destroy(err));
    return this;
  }
  return connect.apply(this, /** @type {Parameters<typeof connect>} */ (args));
};
