// The example end to end: `node examples/catalogue-workers/main.mjs [workers] [users] [steps]`.
// The main thread builds a catalogue and saves its snapshot; the workers load it and serve users by
// id; halfway, user 1 moves to another worker through its bytes and carries on.
import { pathToFileURL } from 'node:url';
import init from 'sublinear-bandits';
import { createCluster } from './cluster.mjs';

// A small seeded generator (xorshift), so that every run and the test see the same world.
export function seeded(seed) {
  const mask = (1n << 64n) - 1n;
  let state = (BigInt(seed) * 0x9e3779b97f4a7c15n + 1n) & mask;
  const next = () => {
    state ^= (state << 13n) & mask;
    state ^= state >> 7n;
    state ^= (state << 17n) & mask;
    return Number(state >> 11n) / 2 ** 53;
  };
  // Box-Muller on two uniforms.
  return { uniform: next, normal: () => Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next()) };
}

// The world: arms with features and users with hidden tastes; rewards are a function of
// (user, step), so any process serving the user draws the same.
export function makeWorld({ arms = 2000, dim = 16, users = 8, seed = 1 }) {
  const random = seeded(seed);
  const features = Float64Array.from({ length: arms * dim }, () => random.normal());
  const ids = Uint32Array.from({ length: arms }, (_, i) => i);
  const tastes = Array.from({ length: users }, () => Float64Array.from({ length: dim }, () => random.normal()));
  const mean = (userId, arm) => {
    let sum = 0;
    for (let j = 0; j < dim; j++) sum += features[arm * dim + j] * tastes[userId][j];
    return sum;
  };
  const noise = tastes.map((_, userId) => seeded(1000 + userId));
  return { dim, ids, features, users, reward: (userId, arm) => mean(userId, arm) + noise[userId].normal() };
}

// Plays `steps` rounds for every user through `serve` ({ select, update }); returns each user's arms.
export async function play(world, serve, steps, history = Array.from({ length: world.users }, () => [])) {
  for (let step = 0; step < steps; step++) {
    // The users' requests of one round go out together, as concurrent traffic would.
    const arms = await Promise.all(Array.from({ length: world.users }, (_, userId) => serve.select(userId)));
    await Promise.all(arms.map((arm, userId) => {
      history[userId].push(arm);
      return serve.update(userId, arm, world.reward(userId, arm));
    }));
  }
  return history;
}

export async function runExample({ workers = 2, users = 8, steps = 40, policy = 'sub-ts', log = () => {} } = {}) {
  const sb = await init();
  const world = makeWorld({ users });
  const catalogue = new sb.Catalogue({ dim: world.dim, seed: 1 });
  catalogue.add(world.ids, world.features);
  // The whole graph now: a catalogue copy that built slices while serving would differ from the others.
  catalogue.build();
  const catalogueBytes = catalogue.toBytes();
  catalogue.dispose();
  log(`catalogue: ${world.ids.length} arms x ${world.dim}, snapshot ${catalogueBytes.length} bytes`);

  const cluster = await createCluster({ catalogueBytes, workers, policy });
  try {
    const history = await play(world, cluster, steps);
    const moving = 1;
    const from = cluster.workerOf(moving);
    const to = (from + 1) % workers;
    const bytes = await cluster.move(moving, to);
    log(`user ${moving} moved from worker ${from} to worker ${to} as ${bytes} bytes`);
    await play(world, cluster, steps, history);
    const shards = await Promise.all(Array.from({ length: workers }, (_, worker) => cluster.usersOn(worker)));
    shards.forEach((ids, worker) => log(`worker ${worker} serves users ${ids.sort((a, b) => a - b).join(', ')}`));
    return { history, shards, moved: { user: moving, from, to, bytes }, catalogueBytes };
  } finally {
    await cluster.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [workers = 2, users = 8, steps = 40] = process.argv.slice(2).map(Number);
  const { history } = await runExample({ workers, users, steps, log: console.log });
  console.log(`user 0's last arms: ${history[0].slice(-5).join(', ')}`);
}
