// Chart.js views of an experiment: cumulative regret (or reward) with mean ± std bands, time per
// step, and Liu et al.'s (arXiv:1812.06360) precision against speedup. Many series stay readable: one
// colour per method, one dash pattern per parameter (and one marker per data set when both vary), and a
// legend in HTML beside the plot that scrolls instead of squeezing it. Charts redraw as runs finish.
import { BarController, BarElement, CategoryScale, Chart, Filler, LinearScale, LineController, LineElement,
  LogarithmicScale, PointElement, ScatterController, Tooltip } from 'chart.js';

Chart.register(BarController, BarElement, CategoryScale, Filler, LinearScale, LineController, LineElement,
  LogarithmicScale, PointElement, ScatterController, Tooltip);

export { Chart };

// Tableau 10: distinguishable on light and dark backgrounds. Presets have at most 7 methods.
export const palette = ['#4e79a7', '#e15759', '#59a14f', '#f28e2b', '#b07aa1', '#76b7b2', '#edc948', '#ff9da7', '#9c755f', '#bab0ac'];
export const dashes = [[], [8, 4], [2, 3], [12, 4, 2, 4], [5, 5], [16, 6], [1, 3], [10, 3, 2, 3, 2, 3]];
export const markers = ['circle', 'triangle', 'rect', 'rectRot', 'star', 'crossRot'];

function withAlpha(hex, alpha) {
  const value = Number.parseInt(hex.slice(1), 16);
  return `rgba(${value >> 16}, ${(value >> 8) & 255}, ${value & 255}, ${alpha})`;
}

// Text and grid colours from the page's CSS, which follows prefers-color-scheme. Set on each chart's
// scales (Chart.js's documented way to change options of a live chart: later changes to
// Chart.defaults do not reach charts already made), and again when the system's setting changes.
function themeColours() {
  const css = getComputedStyle(document.documentElement);
  return { text: css.getPropertyValue('--chart-text').trim() || '#444', grid: css.getPropertyValue('--chart-grid').trim() || 'rgba(0, 0, 0, 0.1)' };
}

export function applyTheme(chart) {
  const { text, grid } = themeColours();
  for (const scale of Object.values(chart.options.scales ?? {})) {
    scale.ticks.color = text;
    scale.title.color = text;
    scale.grid.color = grid;
    scale.border.color = grid;
  }
}

matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => {
  for (const chart of Object.values(Chart.instances)) {
    applyTheme(chart);
    chart.update();
  }
});

const unique = (values) => [...new Set(values)];

// The method a run belongs to (its colour) and the parameters that tell it from the method's other
// runs (its dash): the policy's options, or else the environment's (Table 5's arrival rate, a
// matroid's kind). When both vary (Liu et al.: settings × data sets) the environment gets a marker.
export function seriesStyles(runs) {
  const methodOf = (run) => run.method ?? [run.policy.type, run.policy.randomization].filter(Boolean).join(':');
  const policyKey = (run) => JSON.stringify(run.policy);
  const environmentKey = (run) => JSON.stringify(run.environment);
  const methods = unique(runs.map(methodOf));
  const environments = unique(runs.map(environmentKey));
  return runs.map((run) => {
    const method = methodOf(run);
    const settings = unique(runs.filter((other) => methodOf(other) === method).map(policyKey));
    const environment = environments.indexOf(environmentKey(run));
    const byPolicy = settings.length > 1;
    return {
      colour: palette[methods.indexOf(method) % palette.length],
      dash: dashes[(byPolicy ? settings.indexOf(policyKey(run)) : environment) % dashes.length],
      marker: byPolicy && environments.length > 1 ? markers[environment % markers.length] : null,
    };
  });
}

const svg = (tag, attributes) => {
  const node = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  return node;
};

// A small drawing of a series' line: colour, dash and marker, as on the chart.
function swatch({ colour, dash, marker }) {
  const picture = svg('svg', { width: 34, height: 12, viewBox: '0 0 34 12', 'aria-hidden': 'true' });
  picture.append(svg('line', { x1: 1, y1: 6, x2: 33, y2: 6, stroke: colour, 'stroke-width': 2.5, 'stroke-dasharray': dash.length ? dash.join(' ') : 'none' }));
  if (marker === 'triangle') picture.append(svg('path', { d: 'M17 1.5 L21.5 10 L12.5 10 Z', fill: colour }));
  else if (marker === 'rect') picture.append(svg('rect', { x: 13, y: 2, width: 8, height: 8, fill: colour }));
  else if (marker === 'rectRot') picture.append(svg('path', { d: 'M17 1 L22 6 L17 11 L12 6 Z', fill: colour }));
  else if (marker) picture.append(svg('circle', { cx: 17, cy: 6, r: 4, fill: colour }));
  return picture;
}

// Chart.js's HTML legend pattern: a plugin that lists the chart's series in an element of the page,
// each a toggle button. A list beside the plot scrolls when long; Chart.js's own legend would take
// the plot's room instead. Datasets sharing a `series` number (a mean and its band) toggle together.
const htmlLegend = {
  id: 'htmlLegend',
  afterUpdate(chart, args, options) {
    if (!options.container) return;
    const seen = new Set();
    const items = [];
    chart.data.datasets.forEach((dataset, index) => {
      if (dataset.band || seen.has(dataset.series ?? index)) return;
      seen.add(dataset.series ?? index);
      items.push({ dataset, series: dataset.series ?? index, visible: chart.isDatasetVisible(index) });
    });
    options.container.replaceChildren(...items.map(({ dataset, series, visible }) => {
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'legend-item';
      button.setAttribute('aria-pressed', String(visible));
      button.title = visible ? 'Hide this series' : 'Show this series';
      button.append(swatch(dataset.style), document.createTextNode(dataset.label));
      button.addEventListener('click', () => {
        chart.data.datasets.forEach((other, index) => {
          if ((other.series ?? index) === series) chart.setDatasetVisibility(index, !visible);
        });
        chart.update();
      });
      const item = document.createElement('li');
      item.append(button);
      return item;
    }));
  },
};

export class CurveChart {
  constructor(canvas, { yLabel, legend }) {
    this.chart = new Chart(canvas, {
      type: 'line',
      data: { datasets: [] },
      plugins: [htmlLegend],
      options: {
        animation: false,
        maintainAspectRatio: false,
        parsing: false,
        normalized: true,
        elements: { point: { radius: 0 } },
        interaction: { mode: 'nearest', axis: 'x', intersect: false },
        scales: {
          x: { type: 'linear', title: { display: true, text: 'step t' } },
          y: { title: { display: true, text: yLabel } },
        },
        plugins: {
          htmlLegend: { container: legend },
          tooltip: { filter: (item) => !item.dataset.band },
        },
      },
    });
    applyTheme(this.chart);
  }

  // series: [{ label, t, mean, std, style: { colour, dash, marker } }]; a series with `lower` and
  // `upper` (per-user quartiles) draws its band between them instead of mean ± std.
  update(series, yLabel) {
    const datasets = [];
    // One band for curves that are identical: stacked translucent bands would darken into a new colour.
    const bands = new Set();
    series.forEach((entry, i) => {
      const { colour, dash, marker } = entry.style;
      const points = (values) => entry.t.map((t, j) => ({ x: t, y: values(j) }));
      const lower = (j) => (entry.lower ? entry.lower[j] : entry.mean[j] - entry.std[j]);
      const upper = (j) => (entry.upper ? entry.upper[j] : entry.mean[j] + entry.std[j]);
      const bandKey = `${entry.t.join()}|${entry.mean.join()}|${entry.t.map((_, j) => `${lower(j)}:${upper(j)}`).join()}`;
      const bandDrawn = bands.has(bandKey);
      bands.add(bandKey);
      // A marker on every tenth point only: enough to tell data sets apart without hiding the line.
      const every = Math.max(1, Math.round(entry.t.length / 10));
      datasets.push({ label: `${entry.label} (lower)`, series: i, band: true, data: bandDrawn ? [] : points(lower), borderWidth: 0, pointRadius: 0 });
      datasets.push({ label: `${entry.label} (upper)`, series: i, band: true, data: bandDrawn ? [] : points(upper), borderWidth: 0, pointRadius: 0, fill: '-1', backgroundColor: withAlpha(colour, 0.12) });
      datasets.push({ label: entry.label, series: i, style: entry.style, data: points((j) => entry.mean[j]), borderColor: colour, backgroundColor: colour, borderWidth: 2, borderDash: dash,
        pointStyle: marker ?? 'circle', pointRadius: marker ? (context) => (context.dataIndex % every === 0 ? 3.5 : 0) : 0 });
    });
    this.chart.data.datasets = datasets;
    if (yLabel) this.chart.options.scales.y.title.text = yLabel;
    this.chart.update();
  }
}

export class BarChart {
  constructor(canvas, { xLabel, yLabel }) {
    this.box = canvas.parentElement;
    this.xLabel = xLabel;
    this.chart = new Chart(canvas, {
      type: 'bar',
      data: { labels: [], datasets: [] },
      options: {
        animation: false,
        maintainAspectRatio: false,
        indexAxis: 'y',
        // Every bar keeps its label: the box grows with the number of bars instead.
        scales: { x: { beginAtZero: true, title: { display: true, text: xLabel } }, y: { ticks: { autoSkip: false }, title: { display: true, text: yLabel } } },
        plugins: { legend: { display: false } },
      },
    });
    applyTheme(this.chart);
  }

  // labels and values of the bars, and each bar's style (its method's colour).
  update(labels, values, styles) {
    this.box.style.height = `${Math.max(20, 3.5 + 1.45 * labels.length)}rem`;
    // Times that span more than ×30 (Liu et al.'s methods) on a log axis, so the short bars stay
    // visible.
    const positive = values.filter((value) => value > 0);
    const logarithmic = positive.length > 1 && Math.max(...positive) / Math.min(...positive) > 30;
    const x = this.chart.options.scales.x;
    x.type = logarithmic ? 'logarithmic' : 'linear';
    x.ticks.callback = logarithmic ? (value) => logTickLabel(value) : (value) => String(Number(value.toPrecision(6)));
    x.title.text = `${this.xLabel}${logarithmic ? ' (log scale)' : ''}`;
    this.chart.data.labels = labels;
    this.chart.data.datasets = [{ label: this.xLabel, data: values, backgroundColor: styles.map((style) => style.colour) }];
    this.chart.update();
  }
}

// Log-axis labels at 1, 2 and 5 times a power of ten only: the other ticks keep their grid line but
// no text, so labels never overlap.
export function logTickLabel(value, prefix = '') {
  if (!(value > 0)) return null;
  const power = 10 ** Math.floor(Math.log10(value) + 1e-9);
  const mantissa = value / power;
  if (![1, 2, 5].some((nice) => Math.abs(mantissa - nice) < 1e-6)) return null;
  return `${prefix}${Number(value.toPrecision(3))}`;
}

// Liu et al.'s trade-off view: precision@k against online speedup over the exact scan, log x axis,
// one colour per method, one marker and dash per data set, one point per parameter setting.
export class TradeoffChart {
  constructor(canvas, { legend }) {
    this.chart = new Chart(canvas, {
      type: 'scatter',
      data: { datasets: [] },
      plugins: [htmlLegend],
      options: {
        animation: false,
        maintainAspectRatio: false,
        // Room above the plot for points at precision 1.0, which `clip` lets overflow the area.
        layout: { padding: { top: 10, right: 10 } },
        scales: {
          x: { type: 'logarithmic', title: { display: true, text: 'online speedup over the exact scan (select time ratio, log scale)' },
            ticks: { callback: (value) => logTickLabel(value, '×'), maxRotation: 0 } },
          y: { min: 0, max: 1, title: { display: true, text: 'precision@k' } },
        },
        plugins: {
          htmlLegend: { container: legend },
          tooltip: { callbacks: { label: (item) => `${item.raw.label}: ×${item.raw.x.toFixed(2)}, precision ${item.raw.y.toFixed(3)}` } },
        },
      },
    });
    applyTheme(this.chart);
  }

  // points: [{ method, group, label, x: speedup, y: precision }].
  update(points) {
    const methods = unique(points.map((point) => point.method));
    const groups = unique(points.map((point) => point.group));
    const lines = unique(points.map((point) => `${point.method}\u0000${point.group}`));
    this.chart.data.datasets = lines.map((line) => {
      const [method, group] = line.split('\u0000');
      const style = { colour: palette[methods.indexOf(method) % palette.length], dash: dashes[groups.indexOf(group) % dashes.length], marker: markers[groups.indexOf(group) % markers.length] };
      return {
        label: groups.length > 1 ? `${method} (${group})` : method,
        style,
        data: points.filter((point) => point.method === method && point.group === group).sort((a, b) => a.x - b.x),
        borderColor: style.colour,
        backgroundColor: style.colour,
        borderDash: style.dash,
        pointStyle: style.marker,
        showLine: true,
        pointRadius: 4.5,
        clip: 8,
      };
    });
    // The log axis's range with a margin, so that the extreme points are not cut at the border.
    const xs = points.map((point) => point.x).filter((x) => x > 0);
    this.chart.options.scales.x.min = xs.length ? Math.min(...xs) / 1.3 : undefined;
    this.chart.options.scales.x.max = xs.length ? Math.max(...xs) * 1.3 : undefined;
    this.chart.update();
  }
}

// The timing charts: lines through measured points on log-log axes (time per step against K,
// total time against the horizon), one colour per method and one dash per group, the HTML legend.
// Log axes because the values span several powers of ten, and a linear and a sublinear policy
// differ there in slope.
export class LogLogChart {
  constructor(canvas, { xLabel, yLabel, legend }) {
    this.chart = new Chart(canvas, {
      type: 'line',
      data: { datasets: [] },
      plugins: [htmlLegend],
      options: {
        animation: false,
        maintainAspectRatio: false,
        parsing: false,
        layout: { padding: { top: 10, right: 10 } },
        interaction: { mode: 'nearest', intersect: false },
        scales: {
          x: { type: 'logarithmic', title: { display: true, text: xLabel }, ticks: { maxRotation: 0 } },
          // The labels are thinned below; Chart.js's own skipping would drop the ones kept.
          y: { type: 'logarithmic', title: { display: true, text: yLabel }, ticks: { autoSkip: false } },
        },
        plugins: {
          htmlLegend: { container: legend },
          tooltip: { callbacks: { label: (item) => `${item.dataset.label}: ${Number(item.raw.y.toPrecision(3))} at ${item.raw.x.toLocaleString('en-US')}` } },
        },
      },
    });
    applyTheme(this.chart);
  }

  // series: [{ label, style: { colour, dash, marker }, points: [{ x, y }] }], x and y positive.
  update(series) {
    this.chart.data.datasets = series.map((entry) => ({
      label: entry.label,
      style: entry.style,
      data: entry.points,
      borderColor: entry.style.colour,
      backgroundColor: entry.style.colour,
      borderDash: entry.style.dash,
      borderWidth: 2,
      pointStyle: entry.style.marker ?? 'circle',
      pointRadius: 3.5,
      clip: 8,
    }));
    // A margin around the extreme values, so that no point sits on the border; over more than three
    // powers of ten only the powers themselves are labelled, so that labels never overlap.
    for (const axis of ['x', 'y']) {
      const values = series.flatMap((entry) => entry.points.map((point) => point[axis])).filter((value) => value > 0);
      const scale = this.chart.options.scales[axis];
      scale.min = values.length ? Math.min(...values) / 1.5 : undefined;
      scale.max = values.length ? Math.max(...values) * 1.5 : undefined;
      const sparse = values.length > 0 && scale.max / scale.min > 1e3;
      scale.ticks.callback = (value) => {
        const label = logTickLabel(value);
        if (label === null || (sparse && !/^(0\.0*)?1(0*)$/.test(label))) return null;
        return Number(label).toLocaleString('en-US', { maximumSignificantDigits: 3 });
      };
    }
    this.chart.update();
  }
}
