// A user's model in Redis: one hash per user, `user:<id>` = { version, state }, written only by a
// compare-and-set (a Lua script: Redis runs it atomically) that succeeds when the version is still the
// one the writer read. A writer that lost the race reads the user again and redoes its step, so two
// processes serving one user at the same time never fork the model: no decision or reward is lost.
import { createClient, RESP_TYPES } from 'redis';

const COMPARE_AND_SET = `
local current = redis.call('HGET', KEYS[1], 'version') or '0'
if current ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'version', ARGV[2], 'state', ARGV[3])
return 1`;

export async function connectStore(url) {
  const client = await createClient({ url }).connect();
  // The states are bytes: read them back as Buffers (a Uint8Array, as fromBytes asks).
  return { client, redis: client.withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer }) };
}

export const userKey = (userId) => `user:${userId}`;

// { version, state } of a user; version 0 and no state for a user never stored.
export async function loadUser(redis, userId) {
  const [version, state] = await redis.hmGet(userKey(userId), ['version', 'state']);
  return { version: version ? Number(version.toString()) : 0, state: state ?? null };
}

// true when the user's version was still `version`, and the state is now `bytes` at version + 1.
export async function storeUser(redis, userId, version, bytes) {
  const stored = await redis.eval(COMPARE_AND_SET, {
    keys: [userKey(userId)],
    arguments: [String(version), String(version + 1), Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)],
  });
  return stored === 1;
}

// Runs `step(user)` on the user's model as stored and writes it back, again from a fresh read for as
// long as another process wrote the user in between. `open(state)` makes the model (state null: a
// new user). `unsafe: true` writes without the compare (last writer wins): what the example shows
// the compare-and-set prevents. Returns what `step` returned and the retries it took.
export async function updateUser(redis, userId, open, step, { unsafe = false } = {}) {
  for (let retries = 0; ; retries++) {
    const { version, state } = await loadUser(redis, userId);
    const user = open(state);
    try {
      const result = await step(user);
      const bytes = user.toBytes();
      if (unsafe) {
        await redis.hSet(userKey(userId), { version: String(version + 1), state: Buffer.from(bytes) });
        return { result, retries };
      }
      if (await storeUser(redis, userId, version, bytes)) return { result, retries };
    } finally {
      user.dispose();
    }
  }
}
