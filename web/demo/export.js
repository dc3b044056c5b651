// Results as files: CSV (one row per recorded step per run and seed) and JSON (configuration and
// everything simulate() returned).

export function toCsv(entries) {
  const lines = ['run,seed,t,cumulativeRegret,cumulativeReward'];
  for (const { label, seed, result } of entries) {
    const quoted = `"${label.replaceAll('"', '""')}"`;
    for (let i = 0; i < result.t.length; i++) {
      lines.push(`${quoted},${seed},${result.t[i]},${result.cumulativeRegret[i]},${result.cumulativeReward[i]}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

export function toJson(configuration, entries) {
  return JSON.stringify({
    configuration,
    runs: entries.map(({ label, seed, result }) => ({
      label, seed, ...result,
      t: Array.from(result.t), cumulativeRegret: Array.from(result.cumulativeRegret), cumulativeReward: Array.from(result.cumulativeReward),
      ...(result.users ? { users: { ...result.users, regret: Object.fromEntries(Object.entries(result.users.regret).map(([key, values]) => [key, Array.from(values)])) } } : {}),
    })),
  }, null, 2);
}

export function download(filename, text, type) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = Object.assign(document.createElement('a'), { href: url, download: filename });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
