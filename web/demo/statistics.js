// Mean ± standard deviation across seeds, per recorded step and at the end of each run.

export function meanAndStd(values) {
  const n = values.length;
  const mean = values.reduce((sum, value) => sum + value, 0) / n;
  const variance = n > 1 ? values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / (n - 1) : 0;
  return { mean, std: Math.sqrt(variance) };
}

// results: the simulate() results of one labelled run over several seeds (same t grid).
export function aggregateRuns(results, metric = 'regret') {
  const key = metric === 'reward' ? 'cumulativeReward' : 'cumulativeRegret';
  const t = Array.from(results[0].t);
  const mean = [];
  const std = [];
  for (let i = 0; i < t.length; i++) {
    const stats = meanAndStd(results.map((result) => result[key][i]));
    mean.push(stats.mean);
    std.push(stats.std);
  }
  const final = meanAndStd(results.map((result) => result[key][result[key].length - 1]));
  const seconds = {};
  for (const part of ['setup', 'select', 'update', 'total']) seconds[part] = meanAndStd(results.map((result) => result.seconds[part])).mean;
  const steps = t[t.length - 1] || 1;
  return {
    t, mean, std, final, seconds,
    msPerStep: ((seconds.select + seconds.update) / steps) * 1000,
    innerProductsPerStep: meanAndStd(results.map((result) => result.innerProducts)).mean / steps,
  };
}
