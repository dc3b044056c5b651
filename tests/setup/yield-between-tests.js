// Runs before every test file (vitest.config.js, setupFiles). Vitest goes from one test to the next
// through promise callbacks only, so a file of synchronous tests (wasm calls that run for seconds)
// never lets its worker's event loop turn: the answer to the worker's "onTaskUpdate" message waits,
// and once a file's synchronous tests pass 60 seconds together (bounded-memory.test.js took 69 s
// while the C++ builds ran beside it) Vitest reports 'Timeout calling "onTaskUpdate"' as an
// unhandled error. Two turns of the loop after each test let it read the answer (the first
// setImmediate runs in the turn under way, before its poll phase; the second after the next poll).
import { afterEach } from 'vitest';

afterEach(() => new Promise((resolve) => setImmediate(() => setImmediate(resolve))));
