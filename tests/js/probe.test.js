// The probe suite (probe-suite.js, generated from probe-table.js) on the single-thread build;
// probe-threads.test.js runs it on the threaded build.
import { loadModule } from './helpers.js';
import { probeSuite } from './probe-suite.js';

probeSuite(await loadModule({ threads: 1 }));
