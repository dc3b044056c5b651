// The Web Worker behind runTimedInWorker (experiment.js): one timed trial per message, so that the
// clock runs where the policy runs and the page stays responsive.
import init from 'sublinear-bandits';
import { runTimedTrial } from './timed-trial.js';

self.onmessage = async ({ data }) => {
  try {
    const sb = await init();
    const result = runTimedTrial(sb, data, (fraction) => self.postMessage({ type: 'progress', fraction }));
    self.postMessage({ type: 'result', result });
  } catch (error) {
    self.postMessage({ type: 'error', message: `${error?.code ? `${error.code}: ` : ''}${error?.message ?? error}` });
  }
};
