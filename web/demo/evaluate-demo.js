// Evaluate offline: a uniformly random logging policy writes a log of decisions on a generated
// linear problem; sb.evaluate estimates three other policies' mean reward per decision from that log
// alone, and the page puts each estimate's 95% interval beside the policy's true value, computed
// from the problem itself (frozen: its choices' mean rewards; replay: the same policy run online).
import { applyTheme, Chart } from './charts.js';
import { gaussianVectors } from './data.js';
import { seededRandom, standardNormal } from '../../bench/lib/seeded-random.mjs';

const TARGETS = [['LinUCB', 'lin-ucb'], ['LinTS', 'lin-ts'], ['SubTS', 'sub-ts']];
const ESTIMATORS = ['replay', 'ips', 'snips', 'dm', 'dr'];
const NOISE = 0.5;

// The problem: K arms and theta* from the seed, rewards x^T theta* + N(0, NOISE^2).
function makeProblem(armCount, dim, seed) {
  const features = Float64Array.from(gaussianVectors(armCount, dim, seed), (v) => v / Math.sqrt(dim));
  const theta = Float64Array.from(gaussianVectors(1, dim, seed + 1));
  const ids = Uint32Array.from({ length: armCount }, (_, i) => i);
  const means = Float64Array.from(ids, (id) => {
    let sum = 0;
    for (let j = 0; j < dim; j++) sum += features[id * dim + j] * theta[j];
    return sum;
  });
  const random = seededRandom(seed + 2);
  return { ids, features, means, random, reward: (arm) => means[arm] + NOISE * standardNormal(random) };
}

// Each target learns from its own 200 uniformly random pulls before it is evaluated.
function warmTarget(sb, Class, problem, dim, seed) {
  const policy = new Class({ dim, seed });
  policy.addArms(problem.ids, problem.features);
  for (let t = 0; t < 200; t++) {
    const arm = Math.floor(problem.random() * problem.ids.length);
    policy.update(arm, problem.reward(arm));
  }
  return policy;
}

// The truths: the frozen policy's sum_a pi(a) mu(a) over 5,000 selections of a copy, and what it
// earns learning online for `steps` steps (the records replay matched), over 20 copies.
function truths(Class, policy, problem, steps) {
  const bytes = policy.toBytes();
  const copy = Class.fromBytes(bytes);
  let frozen = 0;
  for (let i = 0; i < 5000; i++) frozen += problem.means[copy.select()];
  copy.dispose();
  let learning = 0;
  for (let run = 0; run < 20; run++) {
    const online = Class.fromBytes(bytes);
    for (let t = 0; t < steps; t++) {
      const arm = online.select();
      learning += problem.means[arm];
      online.update(arm, problem.reward(arm));
    }
    online.dispose();
  }
  return { frozen: frozen / 5000, learning: steps > 0 ? learning / (20 * steps) : null };
}

export function setUpEvaluateDemo(sb) {
  const $ = (selector) => document.querySelector(selector);
  const readInteger = (id) => Number.parseInt($(`#${id}`).value, 10);
  const table = $('#evaluate-table');
  const error = $('#evaluate-error');
  const summary = $('#evaluate-summary');
  let chart = null;

  function draw(rows) {
    const labels = rows.map((row) => `${row.policy} ${row.estimator}`);
    const data = {
      labels,
      datasets: [
        { type: 'bar', label: '95% interval', data: rows.map((row) => [row.low, row.high]), backgroundColor: 'rgba(59, 110, 168, 0.45)' },
        // Points on the category axis: line datasets without their line.
        { type: 'line', label: 'estimate', data: rows.map((row) => row.value), showLine: false, backgroundColor: '#3b6ea8', borderColor: '#3b6ea8', pointRadius: 4 },
        { type: 'line', label: 'true value', data: rows.map((row) => row.truth), showLine: false, pointStyle: 'crossRot', pointRadius: 7, borderColor: '#c0392b', backgroundColor: '#c0392b' },
      ],
    };
    if (chart) {
      chart.data = data;
      chart.update();
      return;
    }
    chart = new Chart($('#evaluate-chart'), {
      data,
      options: {
        animation: false,
        maintainAspectRatio: false,
        scales: { x: { type: 'category' }, y: { title: { display: true, text: 'mean reward per decision' } } },
      },
    });
    applyTheme(chart);
    chart.update();
  }

  $('#evaluate-form').addEventListener('submit', (event) => {
    event.preventDefault();
    error.hidden = true;
    const armCount = readInteger('evaluate-arms');
    const dim = readInteger('evaluate-dim');
    const records = readInteger('evaluate-records');
    const seed = readInteger('evaluate-seed');
    const owned = [];
    try {
      const started = performance.now();
      const problem = makeProblem(armCount, dim, seed);
      // The log: a uniformly random logger, propensity 1/K.
      const arms = Uint32Array.from({ length: records }, () => Math.floor(problem.random() * armCount));
      const log = { arms, rewards: Float64Array.from(arms, (arm) => problem.reward(arm)), propensities: new Float64Array(records).fill(1 / armCount) };
      const rows = [];
      for (const [name] of TARGETS) {
        const Class = sb[name];
        const policy = warmTarget(sb, Class, problem, dim, seed);
        owned.push(policy);
        const report = sb.evaluate({ policy, log });
        const truth = truths(Class, policy, problem, report.replay.n);
        for (const estimator of ESTIMATORS) {
          const { value, low, high, effectiveSampleSize } = report[estimator];
          const trueValue = estimator === 'replay' ? truth.learning : truth.frozen;
          rows.push({ policy: name, estimator, value, low, high, truth: trueValue, effectiveSampleSize, covered: value !== null && low <= trueValue && trueValue <= high });
        }
      }
      const seconds = (performance.now() - started) / 1000;
      table.querySelector('tbody').replaceChildren(...rows.map((row) => {
        const tr = document.createElement('tr');
        Object.assign(tr.dataset, { policy: row.policy, estimator: row.estimator, covered: String(row.covered) });
        const format = (x) => (x === null ? '–' : x.toFixed(3));
        for (const text of [row.policy, row.estimator, format(row.value), `[${format(row.low)}, ${format(row.high)}]`, format(row.truth), row.effectiveSampleSize.toFixed(0), row.covered ? 'yes' : 'no']) {
          const td = document.createElement('td');
          td.textContent = text;
          tr.append(td);
        }
        return tr;
      }));
      const covered = rows.filter((row) => row.covered).length;
      summary.dataset.covered = String(covered);
      summary.dataset.rows = String(rows.length);
      summary.textContent = `${records} logged decisions of a uniformly random policy over ${armCount} arms (d = ${dim}); ` +
        `${covered} of ${rows.length} intervals hold the true value (about 95% expected). ` +
        `replay estimates the policy as it learns, the others the policy as it stands. ${seconds.toFixed(2)} s.`;
      draw(rows);
    } catch (failure) {
      error.textContent = failure instanceof sb.BanditError ? `${failure.code}: ${failure.message}` : String(failure?.message ?? failure);
      error.hidden = false;
    } finally {
      for (const policy of owned) policy.dispose();
    }
  });
  $('#evaluate-run').disabled = false;
}
