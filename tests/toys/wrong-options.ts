// Must NOT compile (tests/js/types.test.js): the toys' declarations type their options.
import init from 'sublinear-bandits';
import './toys.js';

const sb = await init();
new sb.ToyNormBoundIndex({ dim: 4, block: 'eight' });
