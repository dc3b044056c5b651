// A CommonJS consumer (a .cts file, or a .ts file in a package without "type": "module"): the
// package's require entry, index.cjs, typed by index.d.cts.
import init = require('sublinear-bandits');
import type { SublinearBandits, InitOptions, SavedStateInfo } from 'sublinear-bandits';

async function main(): Promise<void> {
  const options: InitOptions = { threads: 1, warmUp: false };
  const sb: SublinearBandits = await init(options);
  const same: SublinearBandits = await init.init();
  const also: init.SublinearBandits = await init.default({ threadsTimeout: 2000 });
  const index = new sb.ExactIndex({ dim: 2 });
  index.add([1], [1, 2]);
  const info: init.SavedStateInfo | SavedStateInfo = sb.inspectState(index.toBytes());
  console.log(index.search([1, 0], 1).ids[0], same.threads, also.threadsReason, info.class);
  index.dispose();
}

void main();
