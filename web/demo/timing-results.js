// The timing charts' series and the verdict lines under them, computed from the timed trials
// (timed-trial.js) of a run: means over seeds, nothing assumed about which policy is faster.
import { dashes, palette } from './charts.js';

const unique = (values) => [...new Set(values)];
const mean = (values) => values.reduce((sum, value) => sum + value, 0) / values.length;
const powerOfTen = (value) => `10^${Math.round(Math.log10(value))}`;
const rounded = (value) => Number(value.toPrecision(2)).toLocaleString('en-US');
const times = (ratio) => `×${Number(ratio.toPrecision(2))}`;

function resultsOf(finished, runIndex) {
  return finished.filter((entry) => entry.runIndex === runIndex).map((entry) => entry.result);
}

// One colour per method and one dash per group, in order of appearance (the curve chart's colours
// for the same methods).
function styleOf(runs) {
  const methods = unique(runs.map((run) => run.method));
  const groups = unique(runs.map((run) => run.group));
  return (run) => ({ colour: palette[methods.indexOf(run.method) % palette.length], dash: dashes[groups.indexOf(run.group) % dashes.length], marker: null });
}

// Milliseconds per step (select + update, after any initial pulls) against K: one series per
// method and group, a point per K with results.
export function timeAgainstArms(runs, finished) {
  const measured = runs.map((run, runIndex) => ({ run, results: resultsOf(finished, runIndex) })).filter(({ run }) => run.arms);
  const style = styleOf(measured.map(({ run }) => run));
  const keys = unique(measured.map(({ run }) => `${run.method}\u0000${run.group ?? ''}`));
  return keys.map((key) => {
    const members = measured.filter(({ run }) => `${run.method}\u0000${run.group ?? ''}` === key);
    const { run } = members[0];
    return {
      label: run.group ? `${run.method}, ${run.group}` : run.method,
      method: run.method,
      group: run.group,
      style: style(run),
      points: members.filter(({ results }) => results.length > 0).map(({ run: { arms }, results }) => ({
        x: arms, y: mean(results.map(({ steady }) => (1000 * steady.seconds) / steady.rounds)) })),
    };
  }).filter((series) => series.points.length > 0);
}

// "Growth of the time per step …": per method its growth from its smallest to its largest K, per
// group (a matroid's kind) where there are several.
export function armsVerdict(series) {
  const ranges = new Map();
  for (const method of unique(series.map((entry) => entry.method))) {
    const growths = series.filter((entry) => entry.method === method && entry.points.length > 1).map(({ group, points }) => ({
      group,
      range: `from K = ${powerOfTen(points[0].x)} to ${powerOfTen(points.at(-1).x)} (K ${times(points.at(-1).x / points[0].x)})`,
      growth: times(points.at(-1).y / points[0].y),
    }));
    for (const range of unique(growths.map((entry) => entry.range))) {
      const inRange = growths.filter((entry) => entry.range === range);
      const text = inRange.map(({ group, growth }) => (group ? `${growth} ${group}` : growth)).join(', ');
      ranges.set(range, [...(ranges.get(range) ?? []), `${method} ${text}`]);
    }
  }
  if (ranges.size === 0) return '';
  return `Measured in this run, growth of the time per step ${[...ranges].map(([range, entries]) => `${range}: ${entries.join('; ')}`).join('. And ')}.`
    + ' A policy whose time grows less than K does is sublinear there.';
}

// Total seconds (setup included) at each checkpoint of the horizon: one series per run.
export function totalAgainstHorizon(runs, finished) {
  const style = styleOf(runs);
  return runs.map((run, runIndex) => {
    const results = resultsOf(finished, runIndex);
    if (results.length === 0) return null;
    const { t } = results[0].elapsed;
    return { label: run.label, method: run.method, style: style(run), points: t.map((x, i) => ({ x, y: mean(results.map(({ elapsed }) => elapsed.seconds[i])) })) };
  }).filter(Boolean);
}

// Where the sublinear policy's total drops below the baseline's for good, or why not within this
// horizon (with the horizon at which the last checkpoints' rates would make it so).
export function crossoverVerdict(series, { baseline, sublinear }) {
  const base = series.find((entry) => entry.method === baseline);
  const fast = series.find((entry) => entry.method === sublinear);
  if (!base || !fast) return '';
  const t = base.points.map((point) => point.x);
  const gap = fast.points.map((point, i) => point.y - base.points[i].y);
  const last = t.length - 1;
  const ratio = `${times(fast.points[last].y / base.points[last].y)} ${baseline}'s`;
  let from = last + 1;
  while (from > 0 && gap[from - 1] < 0) from -= 1;
  if (from === 0) return `${sublinear}'s total time was below ${baseline}'s at every checkpoint, setup included; at T = ${t[last].toLocaleString('en-US')} it was ${ratio}.`;
  if (from <= last) {
    // Both totals grow about linearly between two checkpoints: the crossing by interpolation.
    const crossing = t[from - 1] + ((t[from] - t[from - 1]) * gap[from - 1]) / (gap[from - 1] - gap[from]);
    return `${sublinear} paid back its setup: its total time fell below ${baseline}'s at about T = ${rounded(crossing)} (between the checkpoints `
      + `${t[from - 1].toLocaleString('en-US')} and ${t[from].toLocaleString('en-US')}) and stayed below; at T = ${t[last].toLocaleString('en-US')} it was ${ratio}.`;
  }
  if (last < 1) return `Not within this horizon: at T = ${t[last].toLocaleString('en-US')} ${sublinear}'s total time was ${ratio}.`;
  const rate = (points) => (1000 * (points[last].y - points[last - 1].y)) / (t[last] - t[last - 1]);
  const [baseRate, fastRate] = [rate(base.points), rate(fast.points)];
  const rates = `${fastRate.toPrecision(2)} against ${baseRate.toPrecision(2)} ms per step between T = ${t[last - 1].toLocaleString('en-US')} and ${t[last].toLocaleString('en-US')}`;
  // Not "never": an index built a slice per step (Sub-TS's, Sub-Elim's) makes the steps faster only
  // once it is complete, which a short horizon may not reach.
  if (fastRate >= baseRate) return `Not within this horizon: at T = ${t[last].toLocaleString('en-US')} ${sublinear}'s total time was ${ratio}, and its steps were not faster yet (${rates}); an index built a slice per step speeds the steps up only once it is complete, so a longer horizon may still cross.`;
  const estimate = t[last] + gap[last] / ((baseRate - fastRate) / 1000);
  return `Not within this horizon: at T = ${t[last].toLocaleString('en-US')} ${sublinear}'s total time was ${ratio}. Its steps were faster (${rates}); `
    + `at those rates it would pay back its setup at about T = ${rounded(estimate)}.`;
}
