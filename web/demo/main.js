import init from 'sublinear-bandits';
import { setUpExperiments } from './experiments-page.js';
import { setUpSearchDemo } from './search-demo.js';

const status = document.querySelector('#status');
try {
  const sb = await init();
  // For exploring the API from the browser console.
  window.sb = sb;
  status.textContent = `WebAssembly module loaded (sublinear-bandits ${sb.version}).`;
  setUpSearchDemo(sb);
  setUpExperiments();
} catch (error) {
  status.textContent = `The WebAssembly module failed to load: ${error?.message ?? error}`;
  status.classList.add('error');
}
