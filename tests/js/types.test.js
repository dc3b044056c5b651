import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

test('the hand-written .d.ts files type-check a consumer written against API.md (tsc --noEmit)', () => {
  let output = '';
  try {
    output = execFileSync('node', ['node_modules/typescript/bin/tsc', '-p', 'tests/types/tsconfig.json'], { cwd: root, encoding: 'utf8' });
  } catch (error) {
    output = `${error.stdout}${error.stderr}`;
  }
  expect(output).toBe('');
}, 60_000);
