// Types of the CommonJS entry (index.cjs): `const { init } = require('sublinear-bandits')`.
import type { InitOptions, SavedStateInfo, SublinearBandits } from './index.js';

declare function init(options?: InitOptions): Promise<SublinearBandits>;
declare namespace init {
  export { init, init as default };
  export type { InitOptions, SavedStateInfo, SublinearBandits };
}
export = init;
