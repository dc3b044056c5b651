// The demo cites papers as the rest of the repository does, by first author and arXiv id: a label
// such as "paper 000" means nothing to a reader who has not seen the page's own numbering.
import { expect, test } from 'vitest';
import { algorithms, papers, presetNotes } from '../../web/demo/about.js';
import { environmentTypes } from '../../web/demo/custom-options.js';
import { presets } from '../../web/demo/presets.js';

const numbered = /\bpaper \d{3}\b/i;

test('no preset, environment or algorithm text refers to a paper by the page\'s number', () => {
  const texts = [
    ...presets.map((preset) => preset.title),
    ...Object.values(environmentTypes).map((type) => type.label),
    ...algorithms.map(([name, , sentence]) => `${name}: ${sentence}`),
    ...Object.values(presetNotes).flatMap((note) => [note.lookFor, note.verdict, ...Object.values(note.settings)]),
  ];
  for (const text of texts) expect(text).not.toMatch(numbered);
});

test('each preset from a paper cites that paper by first author and arXiv id', () => {
  for (const paper of Object.values(papers)) expect(paper.cite).toMatch(new RegExp(`^[A-Z][a-z]+ (et al\\.|and [A-Z][a-z]+), arXiv:${paper.url.split('/abs/')[1].replace('.', '\\.')}$`));
  for (const preset of presets) {
    const note = presetNotes[preset.id];
    if (note) expect(preset.title, preset.id).toContain(papers[note.paper].cite);
  }
});
