// The page's configuration lives in the URL hash, so a link reproduces a run.

export function readState() {
  const params = new URLSearchParams(location.hash.slice(1));
  const state = {};
  for (const [key, value] of params) state[key] = value;
  if (state.custom) {
    try {
      state.custom = JSON.parse(state.custom);
    } catch {
      delete state.custom;
    }
  }
  return state;
}

export function writeState(state) {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(state)) {
    if (value === undefined || value === null || value === '') continue;
    params.set(key, typeof value === 'object' ? JSON.stringify(value) : String(value));
  }
  history.replaceState(null, '', `#${params}`);
}
