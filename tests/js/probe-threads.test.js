// The probe suite (probe-suite.js, generated from probe-table.js) on the threaded build, which Node
// loads by default on two cores or more; probe.test.js runs it on the single-thread build.
import { expect, test } from 'vitest';
import init from '../../dist/index.js';
import { probeSuite } from './probe-suite.js';

const sb = await init({ threads: 2 });

test('the threaded build is the one probed', () => {
  expect(sb.threads).toBe(2);
});

probeSuite(sb);
