// Writes the golden saved states of this version: `node tests/golden/write.mjs` (after the wasm
// build). Each format version's files go to tests/golden/format-<N>/ and are never rewritten once
// committed: later versions must keep loading them, or refuse them with a message naming both
// versions (tests/js/golden-states.test.js).
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import init from '../../dist/index.js';
import { goldenCases } from './cases.js';

const sb = await init();
const probe = new sb.ExactIndex({ dim: 1 }).toBytes();
const format = probe[4] | (probe[5] << 8);
const folder = new URL(`./format-${format}/`, import.meta.url);
if (existsSync(folder) && !process.argv.includes('--overwrite')) {
  console.error(`${folder.pathname} exists: golden files of a released format are never rewritten (--overwrite while it is unreleased)`);
  process.exit(1);
}
mkdirSync(folder, { recursive: true });
const transcripts = {};
for (const [name, golden] of Object.entries(goldenCases)) {
  const object = golden.make(sb);
  writeFileSync(new URL(`${name}.sbst`, folder), object.toBytes());
  transcripts[name] = golden.transcript(object);
  object.dispose();
}
writeFileSync(new URL('transcripts.json', folder), `${JSON.stringify({ library: sb.version, format, transcripts }, null, 1)}\n`);
console.log(`wrote ${Object.keys(transcripts).length} golden states to ${folder.pathname}`);
