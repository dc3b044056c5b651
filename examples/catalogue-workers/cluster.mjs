// Users sharded over Node worker threads that share one catalogue snapshot: user id % workers picks
// the worker, and a user moves between workers as its bytes (toBytes -> postMessage -> fromBytes
// over the receiving worker's own copy of the catalogue). Nothing here is specific to threads: a
// process per machine behind any load balancer, with the bytes in any key-value store, is the same
// shape (docs/recommender.md, "Beyond one process").
import { Worker } from 'node:worker_threads';

const workerUrl = new URL('./worker.mjs', import.meta.url);

export async function createCluster({ catalogueBytes, workers = 2, policy = 'sub-ts', options = {} }) {
  let nextId = 0;
  const pending = new Map();
  const threads = await Promise.all(Array.from({ length: workers }, () => new Promise((resolve, reject) => {
    // Each worker gets its own copy of the snapshot (a structured clone).
    const worker = new Worker(workerUrl, { workerData: { catalogueBytes, policy, options } });
    worker.once('error', reject);
    worker.on('message', (message) => {
      if (message.ready) {
        resolve(worker);
        return;
      }
      const { resolve: done, reject: fail } = pending.get(message.id);
      pending.delete(message.id);
      if (message.error) fail(Object.assign(new Error(message.error.message), { code: message.error.code }));
      else done(message.result);
    });
  })));

  const call = (worker, op, args, transfer = []) => new Promise((resolve, reject) => {
    const id = nextId++;
    pending.set(id, { resolve, reject });
    threads[worker].postMessage({ id, op, ...args }, transfer);
  });

  // Where each user lives: its home shard (id % workers) unless it was moved.
  const moved = new Map();
  const workerOf = (userId) => moved.get(userId) ?? userId % workers;

  return {
    workerOf,
    select: (userId) => call(workerOf(userId), 'select', { userId }),
    update: (userId, arm, reward) => call(workerOf(userId), 'update', { userId, arm, reward }),
    usersOn: (worker) => call(worker, 'users', {}),
    // The user's model leaves its worker as bytes and continues on `to`, exactly where it was.
    async move(userId, to) {
      const bytes = await call(workerOf(userId), 'export', { userId });
      const length = bytes.length;  // read before the transfer detaches the buffer
      await call(to, 'import', { userId, bytes }, [bytes.buffer]);
      moved.set(userId, to);
      return length;
    },
    close: () => Promise.all(threads.map((worker) => worker.terminate())),
  };
}
