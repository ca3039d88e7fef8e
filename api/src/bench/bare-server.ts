/**
 * The floor of `npm run bench:embedded`: a Node HTTP server that answers `GET /health` and does
 * nothing else, in a process of its own. Polled like the embedded system in the same run, its
 * latencies are what the machine and the poller cost; the embedded figures are read against them.
 * Prints `{"url": ...}` once listening.
 */
import { createServer } from 'node:http';

const server = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end('{"status":"ok"}');
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  console.log(JSON.stringify({ url: `http://127.0.0.1:${port}` }));
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
