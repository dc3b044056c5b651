// One service process: `node server.mjs <config json>` with { url (Redis), catalogue (snapshot file),
// name, port (0: any free one) }. Serves
//   POST /decide {user}                   -> 200 { eventId, arm, propensity }
//   POST /reward {user, eventId, reward}  -> 200 { rewarded: true }
// Each request reads the user's model from Redis, restores it over this process's copy of the
// catalogue, decides or rewards, and writes it back by the compare-and-set of
// examples/redis-users/store.mjs (again from a fresh read when another process wrote the user in
// between). The decision's pending record is part of the stored model, so its reward may come to any
// process, at any later time. A reward for an event the user never had: 404 (UNKNOWN_ID); a second
// reward for one event: 409 (INVALID_ARGUMENT); a malformed body: 400. Every response names the
// process in the header `x-service`, and the reads it redid after a lost compare-and-set in `x-retries`. Prints `listening <port>` when ready; SIGTERM ends it.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import init from 'sublinear-bandits';
import { connectStore, updateUser } from '../redis-users/store.mjs';

const config = JSON.parse(process.argv[2]);
const sb = await init({ threads: 1 });
const catalogue = sb.Catalogue.fromBytes(readFileSync(config.catalogue));
const { client, redis } = await connectStore(config.url);
const open = (user) => (state) => state ? sb.SubTS.fromBytes(state, { catalogue }) : new sb.SubTS({ catalogue, seed: user });

class HttpError extends Error {
  constructor(status, message) { super(message); this.status = status; }
}

const isUser = (user) => Number.isInteger(user) && user >= 0 && user < 2 ** 32;

const routes = {
  '/decide': async ({ user }) => {
    if (!isUser(user)) throw new HttpError(400, 'user: an integer id');
    const { result, retries } = await updateUser(redis, user, open(user), (model) => model.decide(), { unsafe: config.unsafe });
    return [{ eventId: result.eventId, arm: result.arm, propensity: result.propensity }, retries];
  },
  '/reward': async ({ user, eventId, reward }) => {
    if (!isUser(user) || !Number.isInteger(eventId) || !Number.isFinite(reward)) throw new HttpError(400, 'user, eventId: integers; reward: a number');
    const { retries } = await updateUser(redis, user, open(user), (model) => model.reward(eventId, reward), { unsafe: config.unsafe });
    return [{ rewarded: true }, retries];
  },
};

const statusOf = (error) => error instanceof HttpError ? error.status
  : error instanceof sb.BanditError ? ({ UNKNOWN_ID: 404, INVALID_ARGUMENT: 409 })[error.code] ?? 400 : 500;

const server = createServer(async (request, response) => {
  let status = 200, body, retries = 0;
  try {
    const route = routes[request.url];
    if (request.method !== 'POST' || !route) throw new HttpError(404, 'POST /decide or /reward');
    let text = '';
    for await (const chunk of request) text += chunk;
    let input;
    try { input = JSON.parse(text); } catch { throw new HttpError(400, 'the body is not JSON'); }
    [body, retries] = await route(input ?? {});
  } catch (error) {
    status = statusOf(error);
    body = { error: error.message, code: error.code };
  }
  response.writeHead(status, { 'content-type': 'application/json', 'x-service': config.name, 'x-retries': String(retries) });
  response.end(JSON.stringify(body));
});

server.listen(config.port ?? 0, '127.0.0.1', () => console.log(`listening ${server.address().port}`));
process.on('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  client.close().finally(() => { catalogue.dispose(); process.exit(0); });
});
