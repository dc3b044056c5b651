// Writes the golden saved states of this version: `node tests/golden/write.mjs` (after the wasm
// build). Each format version's files go to tests/golden/format-<N>/ and are never rewritten once
// committed: later versions must keep loading them, or refuse them with a message naming both
// versions (tests/js/golden-states.test.js).
// With SB_TOYS=1 (after `scripts/build.sh wasm-toys`), the toy build's: only the toys' classes, to
// tests/golden/toys/format-<N>/, which only the toy run reads.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { goldenFolder, loadModule, toyBuild, toyClasses } from '../js/helpers.js';
import { goldenCases } from './cases.js';

const sb = await loadModule();
const probe = new sb.ExactIndex({ dim: 1 }).toBytes();
const format = probe[4] | (probe[5] << 8);
const folder = goldenFolder(format, { toys: toyBuild });
// --missing: a class new in this format (no file yet) gets its golden state; the others are kept.
const missingOnly = process.argv.includes('--missing');
if (existsSync(folder) && !process.argv.includes('--overwrite') && !missingOnly) {
  console.error(`${folder.pathname} exists: golden files of a released format are never rewritten (--overwrite while it is unreleased, --missing for classes that have none)`);
  process.exit(1);
}
mkdirSync(folder, { recursive: true });
const transcriptsFile = new URL('transcripts.json', folder);
const previous = missingOnly && existsSync(transcriptsFile) ? JSON.parse(readFileSync(transcriptsFile, 'utf8')) : null;
const transcripts = previous?.transcripts ?? {};
for (const [name, golden] of Object.entries(goldenCases(sb))) {
  // The package's classes and the toys' each in their own folder.
  if (Object.hasOwn(toyClasses, name) !== toyBuild) continue;
  if (missingOnly && existsSync(new URL(`${name}.sbst`, folder))) continue;
  const object = golden.make(sb);
  writeFileSync(new URL(`${name}.sbst`, folder), object.toBytes());
  transcripts[name] = golden.transcript(object, sb);
  object.dispose();
}
writeFileSync(transcriptsFile, `${JSON.stringify({ library: previous?.library ?? sb.version, format, transcripts }, null, 1)}\n`);
console.log(`wrote ${Object.keys(transcripts).length} golden states to ${folder.pathname}`);
