import init from 'sublinear-bandits';
import { renderIntroduction } from './about-page.js';
import { applyOptionTables } from './custom-options.js';
import { setUpExperiments } from './experiments-page.js';
import { setUpModelDemo } from './model-demo.js';
import { setUpSearchDemo } from './search-demo.js';
import { setUpEvaluateDemo } from './evaluate-demo.js';
import { setUpShop } from './shop.js';

const status = document.querySelector('#status');
// The explanations need no WebAssembly: shown while the module loads (and if it fails to).
renderIntroduction();
try {
  const sb = await init();
  // For exploring the API from the browser console.
  window.sb = sb;
  // How many threads index builds and Sub-TS's graph slices get here, and why: more than one only
  // where the host serves the page cross-origin isolated (docs/demo.md, "Hosting the demo as a static site").
  status.textContent = `WebAssembly module loaded (sublinear-bandits ${sb.version}). Threads: ${sb.threads} (${sb.threadsReason}).`;
  setUpSearchDemo(sb);
  setUpModelDemo(sb);
  setUpEvaluateDemo(sb);
  setUpShop();
  // The custom form's defaults, ranges and choices are the library's own, read before it is built.
  applyOptionTables((kind, type) => sb.optionTable(kind, type));
  setUpExperiments();
} catch (error) {
  status.textContent = `The WebAssembly module failed to load: ${error?.message ?? error}`;
  status.classList.add('error');
}
