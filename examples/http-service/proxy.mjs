// A round-robin in front of the service processes: each request goes to the next port in turn, its
// method, path, headers and body as they came, and the answer comes back as it left the service.
// `startProxy(ports)` resolves to { port, close() }.
import { Agent, createServer, request as forward } from 'node:http';

export function startProxy(ports, { host = '127.0.0.1' } = {}) {
  const agent = new Agent({ keepAlive: true });
  let next = 0;
  const server = createServer((request, response) => {
    const port = ports[next];
    next = (next + 1) % ports.length;
    const upstream = forward({ host, port, method: request.method, path: request.url, headers: request.headers, agent }, (answer) => {
      response.writeHead(answer.statusCode, answer.headers);
      answer.pipe(response);
    });
    upstream.on('error', (error) => {
      response.writeHead(502, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: `service on port ${port}: ${error.message}` }));
    });
    request.pipe(upstream);
  });
  return new Promise((resolve, reject) => {
    server.on('error', reject);
    server.listen(0, host, () => resolve({
      port: server.address().port,
      close: () => new Promise((done) => { server.close(done); server.closeAllConnections(); agent.destroy(); }),
    }));
  });
}
