// memeval network guard, preloaded into every target server with NODE_OPTIONS=--require.
// Refuses every non-loopback DNS lookup, socket connect and fetch, and logs each refusal
// (one JSON line) to $MEMEVAL_NETGUARD_LOG so the report can name the host.
'use strict';
const fs = require('node:fs');
const net = require('node:net');
const dns = require('node:dns');

const LOG = process.env.MEMEVAL_NETGUARD_LOG;

function isLoopback(host) {
  if (host === undefined || host === null || host === '') return true; // defaults to localhost
  const h = String(host).replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h.endsWith('.localhost') || h === '::1' || h === '0:0:0:0:0:0:0:1' || /^127\./.test(h) || h === '::ffff:127.0.0.1';
}

function record(host, port, via) {
  if (!LOG) return;
  try {
    fs.appendFileSync(LOG, JSON.stringify({ host: String(host), port: port === undefined ? null : Number(port), via, pid: process.pid, ts: new Date().toISOString() }) + '\n');
  } catch {
    /* the log is best effort; the refusal is not */
  }
}

function refusal(host, syscall) {
  const err = new Error(`memeval network guard: connection to ${host} refused (only loopback is allowed)`);
  err.code = 'ECONNREFUSED';
  err.syscall = syscall;
  err.hostname = host;
  return err;
}

// DNS: lookups of anything but loopback names fail as if the name did not resolve
function dnsRefusal(host, syscall) {
  record(host, undefined, 'dns');
  const err = refusal(host, syscall);
  err.code = 'ENOTFOUND';
  return err;
}
const origLookup = dns.lookup;
dns.lookup = function guardedLookup(hostname, options, callback) {
  const cb = typeof options === 'function' ? options : callback;
  if (!isLoopback(hostname) && !net.isIP(hostname)) {
    process.nextTick(cb, dnsRefusal(hostname, 'getaddrinfo'));
    return {};
  }
  return origLookup.apply(this, arguments);
};
const origPLookup = dns.promises.lookup;
dns.promises.lookup = async function guardedPLookup(hostname, options) {
  if (!isLoopback(hostname) && !net.isIP(hostname)) {
    throw dnsRefusal(hostname, 'getaddrinfo');
  }
  return origPLookup.call(this, hostname, options);
};
// resolve*: these query the configured DNS servers directly (c-ares), bypassing lookup; a
// query is itself a way out (the name carries the data), so each is refused and named
const RESOLVERS = ['resolve', 'resolve4', 'resolve6', 'resolveAny', 'resolveCaa', 'resolveCname', 'resolveMx', 'resolveNaptr', 'resolveNs', 'resolvePtr', 'resolveSoa', 'resolveSrv', 'resolveTxt', 'reverse'];
function guardCallbackResolvers(target) {
  for (const name of RESOLVERS) {
    const orig = target[name];
    if (typeof orig !== 'function') continue;
    target[name] = function guardedResolve(hostname) {
      const cb = arguments[arguments.length - 1];
      if (!isLoopback(hostname)) {
        const err = dnsRefusal(hostname, 'query');
        if (typeof cb === 'function') process.nextTick(cb, err);
        return;
      }
      return orig.apply(this, arguments);
    };
  }
}
function guardPromiseResolvers(target) {
  for (const name of RESOLVERS) {
    const orig = target[name];
    if (typeof orig !== 'function') continue;
    target[name] = async function guardedResolve(hostname) {
      if (!isLoopback(hostname)) throw dnsRefusal(hostname, 'query');
      return orig.apply(this, arguments);
    };
  }
}
guardCallbackResolvers(dns);
guardCallbackResolvers(dns.Resolver.prototype);
guardPromiseResolvers(dns.promises);
guardPromiseResolvers(dns.promises.Resolver.prototype);

// UDP: refuse datagrams and connects to anything but loopback
const dgram = require('node:dgram');
const origSend = dgram.Socket.prototype.send;
dgram.Socket.prototype.send = function guardedSend(...args) {
  // send(msg, [offset, length,] port, address, cb) or send(msg) on a connected socket
  const cbIndex = args.findIndex((a) => typeof a === 'function');
  const plain = cbIndex === -1 ? args : args.slice(0, cbIndex);
  const address = plain.length >= 3 ? plain[plain.length - 1] : undefined;
  const port = plain.length >= 3 ? plain[plain.length - 2] : undefined;
  if (plain.length >= 3 && typeof address === 'string' && !isLoopback(address)) {
    record(address, port, 'udp');
    const err = refusal(address, 'send');
    if (cbIndex !== -1) process.nextTick(args[cbIndex], err);
    else process.nextTick(() => this.emit('error', err));
    return;
  }
  return origSend.apply(this, args);
};
const origUdpConnect = dgram.Socket.prototype.connect;
dgram.Socket.prototype.connect = function guardedUdpConnect(port, address, cb) {
  if (typeof address === 'string' && !isLoopback(address)) {
    record(address, port, 'udp');
    const err = refusal(address, 'connect');
    process.nextTick(() => (typeof cb === 'function' ? cb(err) : this.emit('error', err)));
    return;
  }
  return origUdpConnect.apply(this, arguments);
};

// Sockets: every TCP connect (http, https, tls, undici) goes through Socket#connect
const origConnect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function guardedConnect(...args) {
  let opts = args[0];
  if (Array.isArray(opts)) opts = opts[0];
  let host;
  let port;
  let path;
  if (opts && typeof opts === 'object') {
    host = opts.host;
    port = opts.port;
    path = opts.path;
  } else if (typeof opts === 'number' || (typeof opts === 'string' && /^\d+$/.test(opts))) {
    port = opts;
    host = typeof args[1] === 'string' ? args[1] : undefined;
  } else if (typeof opts === 'string') {
    path = opts; // a unix socket path
  }
  if (!path && !isLoopback(host)) {
    record(host, port, 'connect');
    const err = refusal(host, 'connect');
    process.nextTick(() => this.destroy(err));
    return this;
  }
  return origConnect.apply(this, args);
};

// fetch: refuse before undici starts, with the URL's host in the log
if (typeof globalThis.fetch === 'function') {
  const origFetch = globalThis.fetch;
  globalThis.fetch = async function guardedFetch(input, init) {
    let url;
    try {
      url = new URL(typeof input === 'string' || input instanceof URL ? String(input) : input.url);
    } catch {
      return origFetch(input, init);
    }
    if ((url.protocol === 'http:' || url.protocol === 'https:' || url.protocol === 'ws:' || url.protocol === 'wss:') && !isLoopback(url.hostname)) {
      record(url.hostname, url.port || (url.protocol === 'https:' ? 443 : 80), 'fetch');
      throw new TypeError('fetch failed', { cause: refusal(url.hostname, 'connect') });
    }
    return origFetch(input, init);
  };
}

require('node:module').syncBuiltinESMExports();
