// Fills the page's explanations from about.js: the papers with links, the algorithms, and the note
// of the selected preset. Plain DOM (no innerHTML), so the texts can hold any character.
import { algorithms, papers, presetNotes, repositoryUrl } from './about.js';

const element = (tag, properties = {}, children = []) => {
  const node = Object.assign(document.createElement(tag), properties);
  node.append(...children);
  return node;
};

function paperLink(number) {
  const paper = papers[number];
  return element('a', { href: paper.url, textContent: paper.title, rel: 'noopener' });
}

export function renderIntroduction() {
  const list = document.querySelector('#paper-list');
  list.replaceChildren(...Object.entries(papers).map(([number, paper]) => element('li', {}, [
    paperLink(number), ` — ${paper.authors}${paper.venue ? `, ${paper.venue}` : ''}, ${paper.cite.slice(paper.cite.indexOf('arXiv:'))}`])));
  document.querySelector('#repository-link').href = repositoryUrl;
  document.querySelector('#algorithm-list').replaceChildren(...algorithms.flatMap(([name, , sentence]) => [
    element('dt', { textContent: name }), element('dd', { textContent: sentence })]));
}

// The selected preset's note: where it comes from, what to look for, both settings, the verdict.
export function renderPresetNote(container, presetId) {
  const note = presetNotes[presetId];
  if (!note) {
    container.replaceChildren();
    return;
  }
  const paper = papers[note.paper];
  const settings = element('table', { className: 'settings-table' }, [
    element('caption', { className: 'visually-hidden', textContent: 'Settings: ours and the paper\'s' }),
    element('tbody', {}, [['ours, laptop scale', note.settings.laptop], ['ours, full scale', note.settings.full], ['the paper', note.settings.paper]]
      .map(([who, what]) => element('tr', {}, [element('th', { scope: 'row', textContent: who }), element('td', { textContent: what })]))),
  ]);
  container.replaceChildren(
    element('p', {}, [element('strong', { textContent: 'From: ' }), paperLink(note.paper), ` (${paper.authors}).`]),
    element('p', {}, [element('strong', { textContent: 'What to look for: ' }), note.lookFor]),
    settings,
    element('p', { className: 'verdict' }, [element('strong', { textContent: 'Verdict: ' }), note.verdict]),
  );
}
