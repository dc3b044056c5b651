// The golden saved states of every format version (tests/golden/format-<N>/, written once by
// tests/golden/write.mjs and never rewritten): a state of the format this version writes must load
// and continue exactly as its transcript recorded; a state of any other format must be refused with
// CORRUPT_STATE naming both format versions and both library versions. In the toy run (SB_TOYS=1)
// the toys' golden states (tests/golden/toys/format-<N>/) are read too.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { goldenCases } from '../golden/cases.js';
import { goldenFolder, goldenFolders, loadModule, toyBuild } from './helpers.js';

const sb = await loadModule();
const cases = goldenCases(sb);
const probe = new sb.ExactIndex({ dim: 1 }).toBytes();
const currentFormat = probe[4] | (probe[5] << 8);
const folders = goldenFolders();

test('the golden states of the current format exist for every class that saves', () => {
  const files = [false, ...(toyBuild ? [true] : [])].flatMap((toys) => {
    const folder = goldenFolder(currentFormat, { toys });
    return existsSync(folder) ? readdirSync(folder).filter((name) => name.endsWith('.sbst')).map((name) => name.slice(0, -5)) : [];
  });
  expect(files.sort()).toEqual(Object.keys(cases).sort());
  // Every class with toBytes() has a golden case.
  const saving = Object.keys(sb).filter((name) => typeof sb[name]?.fromBytes === 'function');
  expect(saving.sort()).toEqual(Object.keys(cases).sort());
});

describe.each(folders.map(({ name, folder }) => [name, folder]))('%s', (folderName, folder) => {
  const { library, format, transcripts } = JSON.parse(readFileSync(new URL('transcripts.json', folder), 'utf8'));
  test.each(Object.keys(transcripts))('%s', (name) => {
    const bytes = new Uint8Array(readFileSync(new URL(`${name}.sbst`, folder)));
    if (format === currentFormat) {
      const restored = sb[name].fromBytes(bytes);
      expect(cases[name].transcript(restored, sb)).toEqual(transcripts[name]);
      restored.dispose();
      return;
    }
    let error;
    try {
      sb[name].fromBytes(bytes);
    } catch (caught) {
      error = caught;
    }
    expect(error?.code).toBe('CORRUPT_STATE');
    expect(error.message).toContain(`format version ${format} (written by sublinear-bandits ${format === 1 ? '0.1.x' : library})`);
    expect(error.message).toContain(`this is sublinear-bandits ${sb.version}, which reads format version ${currentFormat}`);
  });
});
