// Save and load a model: an HNSW index over the search section's items (its count, dimension and
// seed) saved with toBytes() as a .sbst file, and a chosen file restored with HnswIndex.fromBytes().
// What a loaded model holds is shown from the model itself (stats() and a search), so a file built
// elsewhere -- in Node, say -- is described as truthfully as one built here.
import { download } from './export.js';
import { gaussianVectors } from './data.js';

export function setUpModelDemo(sb) {
  const $ = (selector) => document.querySelector(selector);
  const readInteger = (id) => Number.parseInt($(`#${id}`).value, 10);
  const error = $('#model-error');
  const summary = $('#model-summary');
  let model = null;

  function showError(failure) {
    error.textContent = failure instanceof sb.BanditError ? `${failure.code}: ${failure.message}` : String(failure?.message ?? failure);
    error.hidden = false;
  }

  // Replaces the current model (freeing the old one's wasm memory) and describes the new one.
  function show(next, origin) {
    model?.dispose();
    model = next;
    error.hidden = true;
    const stats = model.stats();
    // The search section's query for the model's dimension, so the top items can be compared there.
    const seed = readInteger('seed');
    const k = Math.min(readInteger('k'), model.size);
    const { ids } = model.search(gaussianVectors(1, model.dim, seed + 1), k);
    Object.assign(summary.dataset, { type: stats.type, size: String(model.size), dim: String(model.dim), ids: Array.from(ids).join(',') });
    summary.textContent = [
      origin,
      `Type ${stats.type}, ${model.size} items of dimension ${model.dim}, space ${stats.space}.`,
      `Top ${ids.length} for the search section's query (seed ${seed + 1}; Run there gives the exact ones): ${Array.from(ids, (id) => `item ${id}`).join(', ')}.`,
    ].join('\n');
    $('#save-model').disabled = false;
  }

  $('#build-model').addEventListener('click', () => {
    const count = readInteger('count');
    const dim = readInteger('dim');
    const seed = readInteger('seed');
    let index = null;
    try {
      const started = performance.now();
      index = new sb.HnswIndex({ dim, seed });
      index.add(Uint32Array.from({ length: count }, (_, i) => i), gaussianVectors(count, dim, seed));
      show(index, `Built in ${(performance.now() - started).toFixed(0)} ms from the items above (${count} items, dim ${dim}, seed ${seed}).`);
    } catch (failure) {
      if (index !== model) index?.dispose();
      showError(failure);
    }
  });

  $('#save-model').addEventListener('click', () => {
    try {
      const bytes = model.toBytes();
      download(`hnsw-${model.size}x${model.dim}.sbst`, bytes, 'application/octet-stream');
    } catch (failure) {
      showError(failure);
    }
  });

  $('#model-file').addEventListener('change', async (event) => {
    const file = event.target.files[0];
    if (!file) return;
    try {
      const bytes = new Uint8Array(await file.arrayBuffer());
      const started = performance.now();
      const index = sb.HnswIndex.fromBytes(bytes);
      show(index, `Loaded ${file.name} (${bytes.length} bytes) in ${(performance.now() - started).toFixed(0)} ms.`);
    } catch (failure) {
      showError(failure);
    } finally {
      // The same file may be chosen again (after a rebuild, say): let it fire `change` again.
      event.target.value = '';
    }
  });

  $('#build-model').disabled = false;
  $('#model-file').disabled = false;
}
