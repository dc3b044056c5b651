// The suite's own harness: tests/setup/yield-between-tests.js lets each worker's event loop turn
// between tests (so that a file of long synchronous wasm tests does not time out Vitest's messages).
import { expect, test } from 'vitest';

let turned = false;

test('a test schedules work for two turns of the event loop later', () => {
  setImmediate(() => setImmediate(() => { turned = true; }));
});

test('the event loop has turned twice before the next test starts', () => {
  expect(turned).toBe(true);
});
