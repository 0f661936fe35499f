// Runs inside a target's network namespace: brings loopback up, listens on 127.0.0.1:<port>
// for each bridged memeval service and forwards every connection to the Unix socket memeval
// serves in the host namespace, then runs the server and exits with its status.
// usage: node netns-bridge.cjs <port>=<socket>... -- <command> [args...]
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const net = require('node:net');

const sep = process.argv.indexOf('--');
const pairs = process.argv.slice(2, sep).map((p) => {
  const i = p.indexOf('=');
  return { port: Number(p.slice(0, i)), socket: p.slice(i + 1) };
});
const [command, ...args] = process.argv.slice(sep + 1);

for (const ip of ['ip', '/usr/sbin/ip', '/sbin/ip']) if (spawnSync(ip, ['link', 'set', 'lo', 'up'], { stdio: 'ignore' }).status === 0) break;

function listen({ port, socket }) {
  return new Promise((resolve, reject) => {
    const server = net.createServer((client) => {
      const up = net.connect(socket);
      client.pipe(up).pipe(client);
      const end = () => {
        client.destroy();
        up.destroy();
      };
      client.on('error', end);
      up.on('error', end);
    });
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

Promise.all(pairs.map(listen)).then(
  (servers) => {
    const child = spawn(command, args, { stdio: 'inherit' });
    for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => child.kill(sig));
    child.on('error', (e) => {
      process.stderr.write(`memeval netns bridge: cannot start ${command}: ${e.message}\n`);
      process.exit(127);
    });
    child.on('exit', (code, signal) => {
      for (const s of servers) s.close();
      process.exit(code ?? (signal ? 128 : 1));
    });
  },
  (e) => {
    process.stderr.write(`memeval netns bridge: cannot listen: ${e.message}\n`);
    process.exit(1);
  },
);
