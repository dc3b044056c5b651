// One worker of the example: it loads the catalogue from the snapshot the main thread made (every
// copy has the catalogue's identity, so any worker can restore any user's bytes) and serves the
// users routed to it. A user's model lives here until it is moved out as bytes.
import { parentPort, workerData } from 'node:worker_threads';
import init from 'sublinear-bandits';

const sb = await init();
const catalogue = sb.Catalogue.fromBytes(workerData.catalogueBytes);
const { policy, options } = workerData;
const Policy = { 'lin-ucb': sb.LinUCB, 'lin-ts': sb.LinTS, 'sub-ts': sb.SubTS }[policy];
const users = new Map();

// A user seen for the first time starts here (seeded by its id, so where it starts does not matter).
function userOf(userId) {
  let user = users.get(userId);
  if (user === undefined) {
    user = new Policy({ catalogue, ...options, seed: userId });
    users.set(userId, user);
  }
  return user;
}

const handlers = {
  select: ({ userId }) => userOf(userId).select(),
  update: ({ userId, arm, reward }) => userOf(userId).update(arm, reward),
  // Hands the user's model over as bytes and forgets it: the bytes are the whole user.
  export: ({ userId }) => {
    const user = userOf(userId);
    const bytes = user.toBytes();
    user.dispose();
    users.delete(userId);
    return bytes;
  },
  import: ({ userId, bytes }) => {
    users.get(userId)?.dispose();
    users.set(userId, Policy.fromBytes(bytes, { catalogue }));
  },
  users: () => [...users.keys()],
};

parentPort.on('message', ({ id, op, ...args }) => {
  try {
    const result = handlers[op](args);
    parentPort.postMessage({ id, result }, result instanceof Uint8Array ? [result.buffer] : []);
  } catch (error) {
    parentPort.postMessage({ id, error: { message: error.message, code: error.code } });
  }
});
parentPort.postMessage({ ready: true });
