// The quick check: exact top-k search over seeded Gaussian vectors, with the scores charted.
import { applyTheme, Chart } from './charts.js';
import { gaussianVectors } from './data.js';

export function setUpSearchDemo(sb) {
  const form = document.querySelector('#search-form');
  const resultBox = document.querySelector('#result');
  let chart = null;
  const readInteger = (id) => Number.parseInt(document.querySelector(`#${id}`).value, 10);

  function drawScores(ids, scores) {
    const data = { labels: Array.from(ids, (id) => `item ${id}`), datasets: [{ label: 'inner product', data: Array.from(scores), backgroundColor: '#3b6ea8' }] };
    if (chart) {
      chart.data = data;
      chart.update();
      return;
    }
    chart = new Chart(document.querySelector('#chart'), {
      type: 'bar',
      data,
      options: {
        animation: false,
        maintainAspectRatio: false,
        plugins: { legend: { display: false } },
        scales: { x: { title: { display: true, text: 'item (best first)' } }, y: { title: { display: true, text: 'inner product with the query' } } },
      },
    });
    applyTheme(chart);
    chart.update();
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const count = readInteger('count');
    const dim = readInteger('dim');
    const k = readInteger('k');
    const seed = readInteger('seed');
    try {
      const vectors = gaussianVectors(count, dim, seed);
      const query = gaussianVectors(1, dim, seed + 1);
      const ids = Uint32Array.from({ length: count }, (_, i) => i);
      const index = new sb.ExactIndex({ dim });
      let result;
      let elapsed;
      try {
        index.add(ids, vectors);
        const started = performance.now();
        result = index.search(query, k);
        elapsed = performance.now() - started;
      } finally {
        index.dispose();
      }
      resultBox.dataset.ids = Array.from(result.ids).join(',');
      resultBox.textContent = [
        `Top ${result.ids.length} of ${count} items (dim ${dim}, seed ${seed}), ${elapsed.toFixed(2)} ms:`,
        ...Array.from(result.ids, (id, i) => `  item ${id}: ${result.scores[i].toFixed(4)}`),
      ].join('\n');
      drawScores(result.ids, result.scores);
    } catch (error) {
      resultBox.dataset.ids = '';
      resultBox.textContent = error instanceof sb.BanditError ? `${error.code}: ${error.message}` : String(error);
    }
  });
  document.querySelector('#run').disabled = false;
}
