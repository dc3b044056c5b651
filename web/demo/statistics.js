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
    ...(results.every((result) => result.users) ? { perUser: perUserBands(results) } : {}),
  };
}

// Runs of many users (simulate()'s `users`): the median over users of each user's own cumulative
// regret and its quartiles, averaged over seeds at each recorded step, and what a user costs.
export function perUserBands(results) {
  const average = (key, i) => meanAndStd(results.map((result) => result.users.regret[key][i])).mean;
  const steps = results[0].users.regret.median.length;
  const band = (key) => Array.from({ length: steps }, (_, i) => average(key, i));
  return {
    count: results[0].users.count,
    median: band('median'),
    q1: band('q1'),
    q3: band('q3'),
    perUserBytes: meanAndStd(results.map((result) => result.users.memory.perUserBytes)).mean,
    catalogueBytes: meanAndStd(results.map((result) => result.users.memory.catalogueBytes)).mean,
  };
}
