import { test } from 'node:test';
import assert from 'node:assert/strict';
import { proxyStopProblem } from '../../../src/mcp/proxy.ts';

test('a server that dies of a termination signal was stopped, whoever signalled it; any other end before a stop request is a problem', () => {
  // opencode signals the server's tree itself: the server can be gone before the proxy notes the stop
  assert.equal(proxyStopProblem({ asked: null, code: 143, signal: null }), undefined);
  assert.equal(proxyStopProblem({ asked: null, code: null, signal: 'SIGTERM' }), undefined);
  assert.equal(proxyStopProblem({ asked: 'stdin', took: 'exit', code: 130, signal: null }), undefined);
  assert.equal(proxyStopProblem({ asked: null, code: 0, signal: null }), undefined);
  // a crash at shutdown stays one: an exit code of its own, or a crash signal
  assert.match(
    proxyStopProblem({ asked: null, code: 70, signal: null }) ?? '',
    /exited with code 70 before it was asked to stop/,
  );
  assert.match(proxyStopProblem({ asked: 'SIGTERM', took: 'exit', code: 1, signal: null }) ?? '', /exited with code 1/);
  assert.match(proxyStopProblem({ asked: null, code: null, signal: 'SIGSEGV' }) ?? '', /killed by SIGSEGV/);
  assert.match(proxyStopProblem({ asked: 'stdin', took: 'SIGKILL', code: null, signal: 'SIGKILL' }) ?? '', /SIGKILL/);
});
