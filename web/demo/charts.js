// Chart.js views of an experiment: cumulative regret (or reward) with mean ± std bands, and time per
// step. One colour per labelled run; charts redraw as runs finish.
import { BarController, BarElement, CategoryScale, Chart, Filler, Legend, LinearScale, LineController, LineElement,
  LogarithmicScale, PointElement, ScatterController, Tooltip } from 'chart.js';

Chart.register(BarController, BarElement, CategoryScale, Filler, Legend, LinearScale, LineController, LineElement,
  LogarithmicScale, PointElement, ScatterController, Tooltip);

export { Chart };

export const palette = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b', '#e377c2', '#17becf', '#7f7f7f', '#bcbd22'];

function withAlpha(hex, alpha) {
  const value = Number.parseInt(hex.slice(1), 16);
  return `rgba(${value >> 16}, ${(value >> 8) & 255}, ${value & 255}, ${alpha})`;
}

export class CurveChart {
  constructor(canvas, { yLabel }) {
    this.chart = new Chart(canvas, {
      type: 'line',
      data: { datasets: [] },
      options: {
        animation: false,
        maintainAspectRatio: false,
        parsing: false,
        normalized: true,
        elements: { point: { radius: 0 } },
        scales: {
          x: { type: 'linear', title: { display: true, text: 'step t' } },
          y: { title: { display: true, text: yLabel } },
        },
        plugins: {
          legend: { labels: { filter: (item, data) => !data.datasets[item.datasetIndex].band } },
          tooltip: { filter: (item) => !item.dataset.band },
        },
      },
    });
  }

  // series: [{ label, t, mean, std }] in colour order.
  update(series, yLabel) {
    const datasets = [];
    series.forEach((entry, i) => {
      const colour = palette[i % palette.length];
      const points = (values) => entry.t.map((t, j) => ({ x: t, y: values(j) }));
      datasets.push({ label: `${entry.label} (lower)`, band: true, data: points((j) => entry.mean[j] - entry.std[j]), borderWidth: 0, pointRadius: 0 });
      datasets.push({ label: `${entry.label} (upper)`, band: true, data: points((j) => entry.mean[j] + entry.std[j]), borderWidth: 0, pointRadius: 0, fill: '-1', backgroundColor: withAlpha(colour, 0.15) });
      datasets.push({ label: entry.label, data: points((j) => entry.mean[j]), borderColor: colour, backgroundColor: colour, borderWidth: 2 });
    });
    this.chart.data.datasets = datasets;
    if (yLabel) this.chart.options.scales.y.title.text = yLabel;
    this.chart.update();
  }
}

export class BarChart {
  constructor(canvas, { xLabel, yLabel }) {
    this.chart = new Chart(canvas, {
      type: 'bar',
      data: { labels: [], datasets: [] },
      options: {
        animation: false,
        maintainAspectRatio: false,
        indexAxis: 'y',
        scales: { x: { title: { display: true, text: xLabel } }, y: { title: { display: true, text: yLabel } } },
        plugins: { legend: { display: false } },
      },
    });
  }

  update(labels, values) {
    this.chart.data.labels = labels;
    this.chart.data.datasets = [{ label: this.chart.options.scales.x.title.text, data: values, backgroundColor: labels.map((_, i) => palette[i % palette.length]) }];
    this.chart.update();
  }
}

// Paper 001's trade-off view: precision@k against online speedup over the exact scan, log x axis,
// one colour per method, one point per parameter setting.
export class TradeoffChart {
  constructor(canvas) {
    this.chart = new Chart(canvas, {
      type: 'scatter',
      data: { datasets: [] },
      options: {
        animation: false,
        maintainAspectRatio: false,
        scales: {
          x: { type: 'logarithmic', title: { display: true, text: 'online speedup over the exact scan (select time ratio, log scale)' } },
          y: { min: 0, max: 1, title: { display: true, text: 'precision@k' } },
        },
        plugins: { tooltip: { callbacks: { label: (item) => `${item.raw.label}: ×${item.raw.x.toFixed(2)}, precision ${item.raw.y.toFixed(3)}` } } },
      },
    });
  }

  // points: [{ method, label, x: speedup, y: precision }].
  update(points) {
    const methods = [...new Set(points.map((point) => point.method))];
    this.chart.data.datasets = methods.map((method, i) => ({
      label: method,
      data: points.filter((point) => point.method === method).sort((a, b) => a.x - b.x),
      borderColor: palette[i % palette.length],
      backgroundColor: palette[i % palette.length],
      showLine: true,
      pointRadius: 4,
    }));
    this.chart.update();
  }
}
