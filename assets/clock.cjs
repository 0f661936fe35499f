// memeval clock, preloaded into target servers with NODE_OPTIONS=--require when a scenario sets
// or advances the clock. Shifts the wall clock this process reads by an offset that memeval
// keeps in $MEMEVAL_CLOCK_FILE ({"version": n, "offset_ms": ms}, replaced atomically):
//   shifted:     new Date(), Date(), Date.now(), performance.timeOrigin (so timeOrigin + now())
//   not shifted: performance.now() and process.hrtime (elapsed time, must not jump), timer delays,
//                file times, Intl formatting without a date, and everything in native code:
//                SQLite's CURRENT_TIMESTAMP / datetime('now') are the machine's real time
// The file is checked (one stat) on a read of the clock at most every MEMEVAL_CLOCK_CHECK_MS
// (20 ms) of real time, and memeval waits longer than that after each advance, so an advance
// reaches a running process at its next read; a restarted process reads the offset at load.
// Acknowledgements go to $MEMEVAL_CLOCK_ACK, one JSON line each: "load" when this process took
// the preload, "stdout" before its first write to stdout (the process that answers MCP has the
// shifted clock), "apply" when it read a new version, "error" when the file could not be read.
'use strict';
const fs = require('node:fs');

const FILE = process.env.MEMEVAL_CLOCK_FILE;
const ACK = process.env.MEMEVAL_CLOCK_ACK;
const statSync = fs.statSync;
const readFileSync = fs.readFileSync;
const appendFileSync = fs.appendFileSync;
const RealDate = Date;
const realNow = RealDate.now;

function ack(event, extra) {
  if (!ACK) return;
  try {
    appendFileSync(
      ACK,
      JSON.stringify({ event, pid: process.pid, ppid: process.ppid, main: process.argv[1] ?? null, version, offset_ms: offset, real_ms: realNow(), ...extra }) + '\n',
    );
  } catch {
    /* memeval reads a missing acknowledgement as a clock that did not take effect */
  }
}

let version = -1;
let offset = 0;
let signature = '';
let broken = false;
let checked = -Infinity;
const CHECK_MS = Number(process.env.MEMEVAL_CLOCK_CHECK_MS ?? 20);

/** Read the clock file when it changed since the last read (a new inode, size or mtime). */
function refresh() {
  if (!FILE) return;
  const t = realNow();
  // a stat per read cost ~20 µs where Date.now() costs under 1 µs: servers read the clock a lot
  if (t - checked < CHECK_MS) return;
  checked = t;
  let st;
  try {
    st = statSync(FILE);
  } catch (e) {
    if (!broken) ack('error', { error: `stat: ${e.message}` });
    broken = true;
    return;
  }
  const sig = `${st.ino}:${st.size}:${st.mtimeMs}`;
  if (sig === signature) return;
  try {
    const c = JSON.parse(readFileSync(FILE, 'utf8'));
    if (!Number.isInteger(c.version) || typeof c.offset_ms !== 'number' || !Number.isFinite(c.offset_ms))
      throw new Error('not {"version": integer, "offset_ms": number}');
    signature = sig;
    broken = false;
    if (c.version !== version) {
      const first = version === -1;
      version = c.version;
      offset = c.offset_ms;
      if (!first) ack('apply');
    }
  } catch (e) {
    if (!broken) ack('error', { error: `read: ${e.message}` });
    broken = true;
  }
}

function now() {
  refresh();
  return realNow() + offset;
}

function ShiftedDate(...args) {
  if (!new.target) return new RealDate(now()).toString();
  return Reflect.construct(RealDate, args.length === 0 ? [now()] : args, new.target);
}
Object.setPrototypeOf(ShiftedDate, RealDate);
ShiftedDate.prototype = RealDate.prototype;
Object.defineProperty(ShiftedDate, 'name', { value: 'Date' });
Object.defineProperty(ShiftedDate, 'length', { value: 7 });
ShiftedDate.now = now;
Object.defineProperty(RealDate.prototype, 'constructor', { value: ShiftedDate, writable: true, configurable: true });
globalThis.Date = ShiftedDate;

const perf = globalThis.performance;
if (perf) {
  const origin = perf.timeOrigin;
  Object.defineProperty(perf, 'timeOrigin', {
    configurable: true,
    enumerable: true,
    get() {
      refresh();
      return origin + offset;
    },
  });
}

refresh();
ack(version === -1 ? 'error' : 'load', version === -1 ? { error: 'no clock was read at load' } : undefined);

// the process that answers on stdout must be one that has the shifted clock: a server that
// re-executes itself without NODE_OPTIONS answers from a process that never acknowledges
if (require('node:worker_threads').isMainThread && process.stdout) {
  const out = process.stdout;
  const write = out.write;
  let said = false;
  out.write = function clockedWrite(...args) {
    if (!said) {
      said = true;
      ack('stdout');
    }
    return write.apply(this, args);
  };
}
